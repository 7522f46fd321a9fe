import { beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { toHex } from "../../../src-shared/encoding/bytes";
import { bigIntToBytes32, isCanonicalField } from "../../../src-shared/encoding/field";
import { revertNullifierOf, REVERT_DOMAIN } from "./nullifier";

let hasher: FieldHasher;
beforeAll(async () => {
  hasher = await createPoseidonHasher();
});

const sig = (fill: (i: number) => number): Uint8Array => Uint8Array.from({ length: 64 }, (_, i) => fill(i));

describe("revertNullifierOf", () => {
  it('is Poseidon("revert", four 16-byte words of the signature)', () => {
    const s = sig((i) => i);
    const words = [bigIntToBytes32(REVERT_DOMAIN)];
    for (let i = 0; i < 4; i++) words.push(bigIntToBytes32(BigInt("0x" + toHex(s.subarray(16 * i, 16 * i + 16)))));
    expect(toHex(revertNullifierOf(hasher, s))).toBe(toHex(hasher.hash(words)));
    expect(REVERT_DOMAIN).toBe(BigInt("0x" + Buffer.from("revert").toString("hex")));
  });

  it("pins a golden vector, so a change of derivation is a visible break", () => {
    expect(
      toHex(
        revertNullifierOf(
          hasher,
          sig((i) => i),
        ),
      ),
    ).toBe(GOLDEN);
  });

  it("is a canonical field element, different per deposit and from the withdrawal nullifier hash of the same bytes", () => {
    const a = revertNullifierOf(
      hasher,
      sig(() => 0xff),
    );
    const b = revertNullifierOf(
      hasher,
      sig((i) => (i === 63 ? 0xfe : 0xff)),
    );
    expect(isCanonicalField(a)).toBe(true);
    expect(toHex(a)).not.toBe(toHex(b));
    expect(
      toHex(
        revertNullifierOf(
          hasher,
          sig(() => 0),
        ),
      ),
    ).not.toBe(toHex(hasher.hash([new Uint8Array(32)])));
  });

  it("refuses anything but a 64-byte signature", () => {
    expect(() => revertNullifierOf(hasher, new Uint8Array(32))).toThrow(RangeError);
  });
});

// Cross-checked against circomlibjs buildPoseidon() on the same five inputs.
const GOLDEN = "0ab626a755bd160b77967e56d37bafd2472297ffb55ffaaecdc24920da1e58d8";
