import { describe, expect, it } from "vitest";
import { toHex } from "../../../src-shared/encoding/bytes";
import { RootHistory } from "./root-history";

const root = (n: number): Uint8Array => {
  const r = new Uint8Array(32);
  new DataView(r.buffer).setUint32(28, n);
  r[0] = n & 0xff;
  return r;
};

describe("RootHistory", () => {
  it("keeps the last `capacity` roots in order while it grows and after it wraps", () => {
    const h = new RootHistory(1000);
    for (let i = 0; i < 2500; i++) {
      h.push(root(i));
      if ([0, 15, 16, 17, 999, 1000, 1001, 2499].includes(i)) {
        const first = Math.max(0, i - 999);
        expect(h.size).toBe(i - first + 1);
        expect(h.list().map(toHex)).toEqual(Array.from({ length: i - first + 1 }, (_, k) => toHex(root(first + k))));
        expect(h.has(root(first))).toBe(true);
        expect(h.has(root(i))).toBe(true);
        if (first > 0) expect(h.has(root(first - 1))).toBe(false);
        expect(h.has(root(i + 1))).toBe(false);
      }
    }
  });

  it("states the roots oldest first in one buffer", () => {
    const h = new RootHistory(3);
    for (let i = 1; i <= 5; i++) h.push(root(i));
    expect(toHex(h.bytes())).toBe([3, 4, 5].map((i) => toHex(root(i))).join(""));
  });

  it("tells a root apart from one that differs in any single byte, and finds a root given as an unaligned view", () => {
    const h = new RootHistory(10);
    const r = root(7).map((b, i) => b ^ (i * 13));
    h.push(r);
    for (let i = 0; i < 32; i++) {
      const other = r.slice();
      other[i] = other[i]! ^ 1;
      expect(h.has(other)).toBe(false);
    }
    const buf = new Uint8Array(40);
    buf.set(r, 3);
    expect(h.has(buf.subarray(3, 35))).toBe(true);
    expect(h.has(new Uint8Array(31))).toBe(false);
  });

  it("keeps a root pushed twice until its last copy leaves the ring", () => {
    const h = new RootHistory(3);
    h.push(root(1));
    h.push(root(1));
    h.push(root(2));
    h.push(root(3));
    expect(h.has(root(1))).toBe(true);
    h.push(root(4));
    expect(h.has(root(1))).toBe(false);
  });
});
