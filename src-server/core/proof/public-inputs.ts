import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { pubkeyToField } from "../../../src-shared/crypto/pubkey-field";
import { bigIntToBytes32 } from "../../../src-shared/encoding/field";

export { pubkeyToField };

export interface WithdrawalStatement {
  root: Uint8Array;
  nullifierHash: Uint8Array;
  recipient: Uint8Array;
  amount: bigint;
  mint: Uint8Array;
}

/**
 * The circuit's public signals in order `root, nullifierHash, recipient,
 * amount, mint`, recomputed by the relay from the request: a client's own
 * public inputs are never trusted.
 */
export function withdrawalPublicSignals(hasher: FieldHasher, s: WithdrawalStatement): Uint8Array[] {
  return [s.root, s.nullifierHash, pubkeyToField(hasher, s.recipient), bigIntToBytes32(s.amount), pubkeyToField(hasher, s.mint)];
}
