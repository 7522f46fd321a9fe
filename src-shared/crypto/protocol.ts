/**
 * Protocol v2 (docs/protocol.md): how leaves, nullifiers and the relay's terms
 * become field elements. One implementation shared by the relay, the sandbox
 * chain, the local validator's program, the SDK and the tests, so that they
 * cannot disagree on a byte.
 *
 * - precommitment = Poseidon(nullifier, secret), chosen by the depositor;
 * - commitment (the leaf) = Poseidon(precommitment, amount, mintField), computed
 *   by the pool from the amount it moved into its vault, never taken from a client;
 * - nullifierHash = Poseidon(nullifier);
 * - extDataHash = Poseidon(relayer, fee, outputMint, minOut), where relayer and
 *   outputMint are public-key field elements and a plain withdrawal has
 *   outputMint = 0 and minOut = 0. The circuit takes it as its sixth public
 *   input, so a proof binds who is paid the fee, the fee, and a swap's minimum.
 */
import { bigIntToBytes32 } from "../encoding/field";
import type { FieldHasher } from "./hasher";
import { pubkeyToField } from "./pubkey-field";

/** Every amount in the protocol is a u64 (SPL Token amounts). */
export const U64_MAX = (1n << 64n) - 1n;

/** The circuit's public signals, in order (resources/zk/verification_key.json has nPublic 6). */
export const PUBLIC_SIGNAL_NAMES = ["root", "nullifierHash", "recipient", "amount", "mint", "extDataHash"] as const;
export const PUBLIC_SIGNAL_COUNT = PUBLIC_SIGNAL_NAMES.length;

const u64Field = (x: bigint, what: string): Uint8Array => {
  if (x < 0n || x > U64_MAX) throw new RangeError(`${what} must be a u64`);
  return bigIntToBytes32(x);
};

/** precommitment = Poseidon(nullifier, secret): what a depositor sends instead of a leaf. */
export function computePrecommitment(hasher: FieldHasher, nullifier: Uint8Array, secret: Uint8Array): Uint8Array {
  return hasher.hash([nullifier, secret]);
}

/**
 * The leaf the pool inserts for a deposit of `amount` base units of `mint`
 * (32 public-key bytes): Poseidon(precommitment, amount, mintField).
 */
export function computeLeaf(hasher: FieldHasher, precommitment: Uint8Array, amount: bigint, mint: Uint8Array): Uint8Array {
  return hasher.hash([precommitment, u64Field(amount, "amount"), pubkeyToField(hasher, mint)]);
}

/** The relay's terms a proof is bound to. */
export interface RelayTerms {
  /** 32 public-key bytes of the key that signs the withdrawal and receives the fee. */
  relayer: Uint8Array;
  /** Base units of the withdrawn mint. */
  fee: bigint;
  /** A swap's output mint (32 bytes) and the least the recipient must receive of it; null for a plain withdrawal. */
  swap: { outputMint: Uint8Array; minOut: bigint } | null;
}

const ZERO = new Uint8Array(32);

/** extDataHash = Poseidon(relayer, fee, outputMint, minOut), with (0, 0) for a plain withdrawal. */
export function computeExtDataHash(hasher: FieldHasher, t: RelayTerms): Uint8Array {
  const outputMint = t.swap ? pubkeyToField(hasher, t.swap.outputMint) : ZERO;
  const minOut = t.swap ? u64Field(t.swap.minOut, "minOut") : ZERO;
  return hasher.hash([pubkeyToField(hasher, t.relayer), u64Field(t.fee, "fee"), outputMint, minOut]);
}

/** Everything the six public signals are recomputed from; nothing comes from a client's own signals. */
export interface WithdrawalStatement {
  root: Uint8Array;
  nullifierHash: Uint8Array;
  /** 32 public-key bytes. */
  recipient: Uint8Array;
  amount: bigint;
  /** 32 public-key bytes. */
  mint: Uint8Array;
  terms: RelayTerms;
}

/** The circuit's public signals `root, nullifierHash, recipient, amount, mint, extDataHash`, 32 bytes each. */
export function withdrawalPublicSignals(hasher: FieldHasher, s: WithdrawalStatement): Uint8Array[] {
  return [
    s.root,
    s.nullifierHash,
    pubkeyToField(hasher, s.recipient),
    u64Field(s.amount, "amount"),
    pubkeyToField(hasher, s.mint),
    computeExtDataHash(hasher, s.terms),
  ];
}
