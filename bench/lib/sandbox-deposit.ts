import { signEd25519 } from "../../src-shared/crypto/ed25519";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { sandboxDepositMessage } from "../../src-shared/messages";

/** The mint the sandbox deposit cases use. */
export const WSOL = "So11111111111111111111111111111111111111112";

/** A POST /sandbox/deposit body of 1 wrapped-SOL unit on mainnet, signed by the wallet's key as the relay checks it. */
export function signedSandboxDeposit(kp: { publicKey: Uint8Array; secretKey: Uint8Array }, precommitment: Uint8Array) {
  const message = sandboxDepositMessage("mainnet", WSOL, 1, precommitment);
  return {
    network: "mainnet",
    mint: WSOL,
    amount: 1,
    precommitment: Array.from(precommitment),
    wallet: encodeBase58(kp.publicKey),
    signature: encodeBase58(signEd25519(message, kp.secretKey)),
  };
}
