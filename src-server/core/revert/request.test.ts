import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import { signEd25519 } from "../../../src-shared/crypto/ed25519";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { revertMessage } from "../../../src-shared/messages";
import { verifyEd25519Native } from "../../../src-shared/node/ed25519-native";
import { checkRevertAuthorization, parseRevertBody, type RevertAuthorization } from "./request";

const kp = nacl.sign.keyPair();
const wallet = encodeBase58(kp.publicKey);
const other = nacl.sign.keyPair();
const txnSig = encodeBase58(new Uint8Array(64).fill(7));

const valid = (): RevertAuthorization => {
  const message = revertMessage(txnSig);
  return { txnSig, message, wallet, walletBytes: kp.publicKey, signature: signEd25519(message, kp.secretKey), tokenWallet: wallet };
};

describe("checkRevertAuthorization (spec: message is the signed text; InvalidSignature = wrong wallet signed)", () => {
  it("accepts the depositor's signature over `Revert deposit: <txn_sig>` with a token of the same wallet", () => {
    expect(checkRevertAuthorization(valid(), verifyEd25519Native)).toEqual({ ok: true, value: undefined });
    expect(valid().message).toBe(`Revert deposit: ${txnSig}`);
  });

  it.each<[string, (a: RevertAuthorization) => void, RegExp]>([
    ["a message naming another deposit", (a) => (a.message = revertMessage(encodeBase58(new Uint8Array(64).fill(8)))), /exactly/],
    ["a message with a trailing newline", (a) => (a.message += "\n"), /exactly/],
    ["a message in another case", (a) => (a.message = a.message.toLowerCase()), /exactly/],
    ["a message without the space", (a) => (a.message = `Revert deposit:${txnSig}`), /exactly/],
    ["a signature by another wallet", (a) => (a.signature = signEd25519(a.message, other.secretKey)), /does not verify/],
    ["a signature over another text", (a) => (a.signature = signEd25519("Revert deposit: x", kp.secretKey)), /does not verify/],
    ["a signature that is not 64 bytes", (a) => (a.signature = null), /does not verify/],
    ["a flipped signature bit", (a) => (a.signature![0]! ^= 1), /does not verify/],
    ["a token issued to another wallet", (a) => (a.tokenWallet = encodeBase58(other.publicKey)), /auth token/],
  ])("refuses %s with InvalidSignature", (_name, mutate, detail) => {
    const a = valid();
    mutate(a);
    const r = checkRevertAuthorization(a, verifyEd25519Native);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.error).toBe("InvalidSignature");
      expect(r.error.detail).toMatch(detail);
    }
  });

  it("checks the message before the signature, and the signature before the token's wallet", () => {
    const a = { ...valid(), message: "nope", signature: null, tokenWallet: "someone" };
    expect(checkRevertAuthorization(a, verifyEd25519Native)).toMatchObject({ ok: false, error: { detail: expect.stringMatching(/exactly/) } });
    const b = { ...valid(), signature: null, tokenWallet: "someone" };
    expect(checkRevertAuthorization(b, verifyEd25519Native)).toMatchObject({ ok: false, error: { detail: expect.stringMatching(/does not verify/) } });
  });
});

describe("parseRevertBody", () => {
  const good = { wallet, signature: encodeBase58(new Uint8Array(64).fill(1)), message: revertMessage(txnSig) };
  it("reads wallet, signature and message", () => {
    expect(parseRevertBody(good)).toMatchObject({ ok: true, value: { wallet, message: good.message, signature: new Uint8Array(64).fill(1) } });
  });
  it("leaves a signature that cannot be 64 base58 bytes to the signature check (InvalidSignature)", () => {
    expect(parseRevertBody({ ...good, signature: "abc" })).toMatchObject({ ok: true, value: { signature: null } });
    expect(parseRevertBody({ ...good, signature: "0OIl" })).toMatchObject({ ok: true, value: { signature: null } });
  });
  it.each<[string, unknown, string]>([
    ["no body", undefined, "body"],
    ["an array", [good], "body"],
    ["a missing wallet", { ...good, wallet: undefined }, "wallet"],
    ["a wallet that is not a key", { ...good, wallet: "abc" }, "wallet"],
    ["a numeric signature", { ...good, signature: 5 }, "signature"],
    ["a missing message", { ...good, message: undefined }, "message"],
    ["a 10 kB message", { ...good, message: "x".repeat(10_000) }, "message"],
  ])("names the field of %s", (_n, body, field) => {
    expect(parseRevertBody(body)).toMatchObject({ ok: false, error: { field } });
  });
});
