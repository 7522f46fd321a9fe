import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import { verifyEd25519Native } from "./ed25519-native";
import { publicKeyBytesOrThrow } from "../encoding/base58";
import { isStrictEd25519Input, verifyEd25519 } from "../crypto/ed25519";

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, "hex"));
const enc = new TextEncoder();
const L = (1n << 252n) + 27742317777372353535851937790883648493n;
const leToBig = (b: Uint8Array): bigint => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);
const bigToLe = (n: bigint): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));

/** The eight points of order dividing 8, canonically encoded (curve25519-dalek's EIGHT_TORSION, "Taming the many EdDSAs" table 5). */
const EIGHT_TORSION = [
  "0100000000000000000000000000000000000000000000000000000000000000", // identity
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
  "0000000000000000000000000000000000000000000000000000000000000080", // order 4
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // order 2
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", // order 8
  "0000000000000000000000000000000000000000000000000000000000000000", // order 4
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", // order 8
];
/** Their six other encodings (ed25519-speccheck, libsodium's blocklist): y + p for y = 0 and 1, and x = 0 with the sign bit set. */
const NON_CANONICAL = [
  "0100000000000000000000000000000000000000000000000000000000000080", // identity, "-0"
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // order 2, "-0"
  "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p (0)
  "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // y = p (0), sign set
  "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p + 1 (1)
  "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // y = p + 1 (1), sign set
];
const ALL_SMALL_ORDER = [...EIGHT_TORSION, ...NON_CANONICAL];

/** The wallet of issue 25: the identity point, whose one signature (R = identity, S = 0) verifies every message. */
const IDENTITY_WALLET = "4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM";
const IDENTITY_SIGNATURE = new Uint8Array(64).fill(0);
IDENTITY_SIGNATURE[0] = 1;

const naclVerify = (m: Uint8Array, s: Uint8Array, k: Uint8Array): boolean => {
  try {
    return nacl.sign.detached.verify(m, s, k);
  } catch {
    return false;
  }
};

const strictChecks = [
  ["verifyEd25519 (tweetnacl, browser)", verifyEd25519],
  ["verifyEd25519Native (node:crypto, relay)", verifyEd25519Native],
] as const;

describe("strict ed25519: what Solana's verify_strict refuses is refused", () => {
  it("the issue's wallet is the identity point, and one fixed signature 'signs' every timestamp for a cofactorless check", () => {
    expect(Buffer.from(publicKeyBytesOrThrow(IDENTITY_WALLET)).toString("hex")).toBe(EIGHT_TORSION[0]);
    for (const t of [0, 1_700_000_000, 1_800_000_123]) expect(naclVerify(enc.encode(String(t)), IDENTITY_SIGNATURE, hex(EIGHT_TORSION[0]!))).toBe(true);
  });

  it.each(strictChecks)("%s refuses the identity wallet's fixed signature for any message", (_name, verify) => {
    for (const t of [0, 1_700_000_000, 1_800_000_123]) expect(verify(String(t), IDENTITY_SIGNATURE, hex(EIGHT_TORSION[0]!))).toBe(false);
  });

  it.each(strictChecks)("%s refuses, as the key, each of the 14 small-order encodings for which a permissive check accepts a forgery", (_name, verify) => {
    for (const a of ALL_SMALL_ORDER) {
      // Grind messages and small-order R with S = 0 until tweetnacl's cofactorless equation holds ([0]B = R + [k]A).
      let forged: { msg: Uint8Array; sig: Uint8Array } | null = null;
      for (let m = 0; m < 64 && !forged; m++) {
        for (const r of EIGHT_TORSION) {
          const sig = new Uint8Array(64);
          sig.set(hex(r), 0);
          const msg = enc.encode(`message ${m}`);
          if (naclVerify(msg, sig, hex(a))) {
            forged = { msg, sig };
            break;
          }
        }
      }
      expect(forged, `a forgery for key ${a}`).not.toBeNull();
      expect(verify(forged!.msg, forged!.sig, hex(a)), `key ${a}`).toBe(false);
    }
  });

  it("refuses each small-order encoding as R and as the key, whatever the rest", () => {
    const kp = nacl.sign.keyPair();
    const sig = nacl.sign.detached(enc.encode("x"), kp.secretKey);
    expect(isStrictEd25519Input(sig, kp.publicKey)).toBe(true);
    for (const p of ALL_SMALL_ORDER) {
      const withR = sig.slice();
      withR.set(hex(p), 0);
      expect(isStrictEd25519Input(withR, kp.publicKey), `R ${p}`).toBe(false);
      expect(isStrictEd25519Input(sig, hex(p)), `A ${p}`).toBe(false);
    }
  });

  it.each(strictChecks)("%s refuses a signature whose S was raised by L (still valid for tweetnacl)", (_name, verify) => {
    const kp = nacl.sign.keyPair();
    const msg = enc.encode("1700000000");
    const sig = nacl.sign.detached(msg, kp.secretKey);
    const malleable = sig.slice();
    malleable.set(bigToLe(leToBig(sig.slice(32)) + L), 32);
    expect(naclVerify(msg, malleable, kp.publicKey)).toBe(true);
    expect(verify(msg, malleable, kp.publicKey)).toBe(false);
    expect(verify(msg, sig, kp.publicKey)).toBe(true);
  });

  it("refuses any key or R whose y is not below p (non-canonical), not only the small-order ones", () => {
    const kp = nacl.sign.keyPair();
    const sig = nacl.sign.detached(enc.encode("x"), kp.secretKey);
    for (let extra = 0; extra < 19; extra++) {
      const y = bigToLe((1n << 255n) - 19n + BigInt(extra));
      expect(isStrictEd25519Input(sig, y)).toBe(false);
      const withR = sig.slice();
      withR.set(y, 0);
      expect(isStrictEd25519Input(withR, kp.publicKey)).toBe(false);
    }
  });

  it.each(strictChecks)("%s accepts every honest signature: 40 random keys and messages", (_name, verify) => {
    for (let i = 0; i < 40; i++) {
      const kp = nacl.sign.keyPair();
      const msg = nacl.randomBytes(i * 3);
      const sig = nacl.sign.detached(msg, kp.secretKey);
      expect(verify(msg, sig, kp.publicKey)).toBe(true);
      const tampered = sig.slice();
      tampered[i % 64]! ^= 4;
      expect(verify(msg, tampered, kp.publicKey)).toBe(false);
    }
  });

  it("answers false, never throws, for wrong lengths and non-arrays", () => {
    const bad = [new Uint8Array(0), new Uint8Array(31), new Uint8Array(33), new Uint8Array(63), new Uint8Array(65)];
    for (const b of bad) {
      expect(verifyEd25519("m", b, new Uint8Array(32))).toBe(false);
      expect(verifyEd25519("m", new Uint8Array(64), b)).toBe(false);
    }
    expect(isStrictEd25519Input("x" as unknown as Uint8Array, new Uint8Array(32))).toBe(false);
  });
});
