import { describe, expect, it } from "vitest";
import { encodeBase58, parsePublicKey, publicKeyBytesOrThrow } from "./base58";

const KEY = "So11111111111111111111111111111111111111112";

describe("publicKeyBytesOrThrow", () => {
  it("gives the same 32 bytes parsePublicKey does", () => {
    const parsed = parsePublicKey(KEY);
    if (!parsed.ok) throw new Error("fixture key did not parse");
    expect(publicKeyBytesOrThrow(KEY)).toEqual(parsed.value);
    expect(encodeBase58(publicKeyBytesOrThrow(KEY))).toBe(KEY);
  });

  it("throws naming the value for text that is not a 32-byte base58 key", () => {
    expect(() => publicKeyBytesOrThrow("0OIl")).toThrow("not a public key: 0OIl");
    expect(() => publicKeyBytesOrThrow(encodeBase58(new Uint8Array(31).fill(7)))).toThrow(/^not a public key: /);
    expect(() => publicKeyBytesOrThrow("")).toThrow("not a public key: ");
  });
});
