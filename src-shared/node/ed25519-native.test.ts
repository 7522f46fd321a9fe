import { randomBytes } from "node:crypto";
import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import { ed25519PublicKeyOfSeed, ed25519Signer, generateEd25519SecretKey, verifyEd25519Native } from "./ed25519-native";

/** The ed25519 group order L, little-endian as S is stored in a signature's last 32 bytes. */
const L = (1n << 252n) + 27742317777372353535851937790883648493n;
const leToBig = (b: Uint8Array): bigint => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);
const bigToLe = (n: bigint, len: number): Uint8Array => Uint8Array.from({ length: len }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));

const naclVerify = (m: Uint8Array, s: Uint8Array, k: Uint8Array): boolean => {
  try {
    return nacl.sign.detached.verify(m, s, k);
  } catch {
    return false;
  }
};

describe("verifyEd25519Native (node:crypto) against tweetnacl", () => {
  it("agrees with tweetnacl on 60 random keys, messages and signatures, valid and tampered", () => {
    for (let i = 0; i < 60; i++) {
      const kp = nacl.sign.keyPair();
      const msg = randomBytes(i % 97);
      const sig = nacl.sign.detached(msg, kp.secretKey);
      expect(verifyEd25519Native(msg, sig, kp.publicKey)).toBe(true);
      const flipped = sig.slice();
      flipped[i % 64]! ^= 1 << (i % 8);
      expect(verifyEd25519Native(msg, flipped, kp.publicKey)).toBe(naclVerify(msg, flipped, kp.publicKey));
      const other = nacl.sign.keyPair().publicKey;
      expect(verifyEd25519Native(msg, sig, other)).toBe(false);
      expect(naclVerify(msg, sig, other)).toBe(false);
      const junk = randomBytes(64);
      expect(verifyEd25519Native(msg, junk, kp.publicKey)).toBe(naclVerify(msg, junk, kp.publicKey));
    }
  });

  it("signs strings as their UTF-8 bytes, as tweetnacl callers do", () => {
    const kp = nacl.sign.keyPair();
    const sig = nacl.sign.detached(new TextEncoder().encode("1700000000 é"), kp.secretKey);
    expect(verifyEd25519Native("1700000000 é", sig, kp.publicKey)).toBe(true);
    expect(verifyEd25519Native("1700000001 é", sig, kp.publicKey)).toBe(false);
  });

  it("answers false, never throws, for keys and signatures of the wrong length", () => {
    const kp = nacl.sign.keyPair();
    const msg = new Uint8Array([1, 2, 3]);
    const sig = nacl.sign.detached(msg, kp.secretKey);
    for (const badSig of [new Uint8Array(0), sig.slice(0, 63), new Uint8Array([...sig, 0]), new Uint8Array(128)]) {
      expect(verifyEd25519Native(msg, badSig, kp.publicKey)).toBe(false);
    }
    for (const badKey of [new Uint8Array(0), kp.publicKey.slice(0, 31), new Uint8Array([...kp.publicKey, 0]), new Uint8Array(64)]) {
      expect(verifyEd25519Native(msg, sig, badKey)).toBe(false);
    }
    expect(verifyEd25519Native(msg, "sig" as unknown as Uint8Array, kp.publicKey)).toBe(false);
    expect(verifyEd25519Native(msg, sig, null as unknown as Uint8Array)).toBe(false);
  });

  it("answers false for a non-canonical signature (S + L), which tweetnacl accepts", () => {
    const kp = nacl.sign.keyPair();
    const msg = randomBytes(32);
    const sig = nacl.sign.detached(msg, kp.secretKey);
    const s = leToBig(sig.slice(32));
    const malleated = new Uint8Array([...sig.slice(0, 32), ...bigToLe(s + L, 32)]);
    expect(s + L < 1n << 256n).toBe(true);
    expect(verifyEd25519Native(msg, malleated, kp.publicKey)).toBe(false);
    // Documented difference: tweetnacl does not check S < L.
    expect(naclVerify(msg, malleated, kp.publicKey)).toBe(true);
  });

  it("answers false, never throws, for public keys that are not curve points or are non-canonical", () => {
    const msg = new Uint8Array([7]);
    const sig = randomBytes(64);
    const p = (1n << 255n) - 19n;
    const keys = [
      new Uint8Array(32).fill(0xff), // y = 2^255 − 1 with the sign bit: y ≥ p
      bigToLe(p, 32), // y = p: non-canonical encoding of 0
      bigToLe(p + 1n, 32), // y = p + 1: non-canonical encoding of 1
      new Uint8Array(32), // y = 0: a point of small order
      bigToLe(1n, 32), // the identity
      bigToLe(2n, 32), // y = 2: not on the curve
    ];
    for (const k of keys) {
      expect(() => verifyEd25519Native(msg, sig, k)).not.toThrow();
      expect(verifyEd25519Native(msg, sig, k)).toBe(false);
    }
    // Random 32-byte strings: about half are not points; none verifies a random signature.
    for (let i = 0; i < 200; i++) expect(verifyEd25519Native(msg, randomBytes(64), randomBytes(32))).toBe(false);
  });

  it("signs with node:crypto exactly as tweetnacl does (ed25519 is deterministic)", () => {
    for (let i = 0; i < 20; i++) {
      const kp = nacl.sign.keyPair();
      const msg = randomBytes(i * 7);
      expect(ed25519Signer(kp.secretKey)(msg)).toEqual(nacl.sign.detached(msg, kp.secretKey));
    }
    const kp = nacl.sign.keyPair();
    expect(ed25519Signer(kp.secretKey)("OFAC:mainnet:x:1")).toEqual(nacl.sign.detached(new TextEncoder().encode("OFAC:mainnet:x:1"), kp.secretKey));
    expect(() => ed25519Signer(new Uint8Array(32))).toThrow(/64 bytes/);
  });
});

describe("generateEd25519SecretKey and ed25519PublicKeyOfSeed (node:crypto) against tweetnacl", () => {
  it("makes seed ‖ public key as tweetnacl's keyPair.fromSeed does, a different seed each time, and signs like it", () => {
    const seeds = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const secret = generateEd25519SecretKey();
      expect(secret.length).toBe(64);
      expect(secret).toEqual(nacl.sign.keyPair.fromSeed(secret.slice(0, 32)).secretKey);
      expect(ed25519PublicKeyOfSeed(secret.slice(0, 32))).toEqual(secret.slice(32));
      expect(ed25519Signer(secret)("x")).toEqual(nacl.sign.detached(new TextEncoder().encode("x"), secret));
      seeds.add(Buffer.from(secret.subarray(0, 32)).toString("hex"));
    }
    expect(seeds.size).toBe(20);
    expect(() => ed25519PublicKeyOfSeed(new Uint8Array(31))).toThrow(/32 bytes/);
  });
});
