import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import { signEd25519 } from "../../../src-shared/crypto/ed25519";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { revertMessage } from "../../../src-shared/messages";
import { checkRevertAuthorization, type RevertAuthorization } from "./request";

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
    expect(checkRevertAuthorization(valid())).toEqual({ ok: true, value: undefined });
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
    const r = checkRevertAuthorization(a);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.error).toBe("InvalidSignature");
      expect(r.error.detail).toMatch(detail);
    }
  });

  it("checks the message before the signature, and the signature before the token's wallet", () => {
    const a = { ...valid(), message: "nope", signature: null, tokenWallet: "someone" };
    expect(checkRevertAuthorization(a)).toMatchObject({ ok: false, error: { detail: expect.stringMatching(/exactly/) } });
    const b = { ...valid(), signature: null, tokenWallet: "someone" };
    expect(checkRevertAuthorization(b)).toMatchObject({ ok: false, error: { detail: expect.stringMatching(/does not verify/) } });
  });
});
