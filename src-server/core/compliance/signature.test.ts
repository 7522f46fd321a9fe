import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import { parseComplianceSignature, verifyComplianceSignature } from "../../../src-shared/compliance";
import { signEd25519 } from "../../../src-shared/crypto/ed25519";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { signCompliance } from "./signature";

const key = nacl.sign.keyPair();
const publicKey = encodeBase58(key.publicKey);
const sign = (m: string): Uint8Array => signEd25519(m, key.secretKey);
const wallet = encodeBase58(nacl.sign.keyPair().publicKey);
const now = 1_700_000_000;

describe("signCompliance (OFAC:<network>:<wallet>:<expiresAtUnix> payload)", () => {
  it("signs `OFAC:<network>:<wallet>:<expiresAtUnix>` and answers `<expiresAtUnix>.<base58 signature>`, valid 120 s", () => {
    const s = signCompliance(sign, "devnet", wallet, now);
    expect(s.expiresAt).toBe(now + 120);
    expect(s.message).toBe(`OFAC:devnet:${wallet}:${now + 120}`);
    expect(s.body).toMatch(new RegExp(`^${now + 120}\\.[1-9A-HJ-NP-Za-km-z]{86,88}$`));
    const parsed = parseComplianceSignature(s.body);
    expect(parsed.ok && nacl.sign.detached.verify(new TextEncoder().encode(s.message), parsed.value.signature, key.publicKey)).toBe(true);
  });

  it("is deterministic for the same inputs (ed25519) and differs per network, wallet and second", () => {
    const a = signCompliance(sign, "mainnet", wallet, now).body;
    expect(signCompliance(sign, "mainnet", wallet, now).body).toBe(a);
    expect(signCompliance(sign, "devnet", wallet, now).body).not.toBe(a);
    expect(signCompliance(sign, "mainnet", wallet, now + 1).body).not.toBe(a);
  });
});

describe("verifyComplianceSignature (the verifier a pool program or wallet runs)", () => {
  const body = signCompliance(sign, "mainnet", wallet, now).body;
  const check = (text: string, over: Partial<Parameters<typeof verifyComplianceSignature>[1]> = {}) =>
    verifyComplianceSignature(text, { publicKey, network: "mainnet", wallet, nowSec: now, ...over });

  it("accepts it until its expiry, with the seconds left", () => {
    expect(check(body)).toEqual({ ok: true, value: { expiresAt: now + 120, remainingSec: 120 } });
    expect(check(body, { nowSec: now + 119 })).toEqual({ ok: true, value: { expiresAt: now + 120, remainingSec: 1 } });
    expect(check(body, { publicKey: key.publicKey }).ok).toBe(true);
  });

  it("refuses it from the expiry second on", () => {
    expect(check(body, { nowSec: now + 120 })).toMatchObject({ ok: false, error: { reason: "expired", expiresAt: now + 120 } });
  });

  it.each<[string, string, Partial<Parameters<typeof verifyComplianceSignature>[1]>]>([
    ["another wallet", body, { wallet: encodeBase58(new Uint8Array(32).fill(9)) }],
    ["another network", body, { network: "devnet" }],
    ["another key", body, { publicKey: encodeBase58(nacl.sign.keyPair().publicKey) }],
    ["a later expiry pasted in front", body.replace(/^\d+/, String(now + 3600)), {}],
  ])("refuses %s as invalid-signature", (_n, text, over) => {
    expect(check(text, over)).toMatchObject({ ok: false, error: { reason: "invalid-signature" } });
  });

  it.each(["", "123", "abc.def", `${now}.${"1".repeat(200)}`, `${now}.0OIl`, `-1.${body.split(".")[1]}`])("refuses %j as malformed", (text) => {
    expect(check(text)).toMatchObject({ ok: false, error: { reason: "malformed" } });
  });

  it("refuses a public key that is not 32 bytes as malformed", () => {
    expect(check(body, { publicKey: "abc" })).toMatchObject({ ok: false, error: { reason: "malformed" } });
    expect(check(body, { publicKey: new Uint8Array(31) })).toMatchObject({ ok: false, error: { reason: "malformed" } });
  });
});
