/**
 * Protocol v3 (docs/zk.md): how leaves, nullifiers and the relay's terms
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
 * - v3: a note's value is private and a withdrawal takes any part `amount` of
 *   it. What is left becomes a change leaf Poseidon(changePrecommitment,
 *   remaining, mintField, origin) (four inputs, so it can never equal a
 *   three-input deposit leaf), inserted by every withdrawal, also when nothing
 *   is left. `origin` is the deposit leaf the chain of notes started from. The
 *   change note's secrets follow from the spent note's
 *   ({@link deriveChangeSecrets}), so the original note alone recovers a chain.
 *   The change commitment is the seventh public input.
 */
import { bigIntToBytes32 } from "../encoding/field";
import type { FieldHasher } from "./hasher";
import { pubkeyToField } from "./pubkey-field";

/** Every amount in the protocol is a u64 (SPL Token amounts). */
export const U64_MAX = (1n << 64n) - 1n;

/** The protocol the withdraw circuit, the relay and the pool program speak; named in every InvalidProof message. */
export const PROTOCOL_VERSION = 3;

/** The circuit's public signals, in order (resources/zk/verification_key.json has nPublic 7). */
export const PUBLIC_SIGNAL_NAMES = ["root", "nullifierHash", "recipient", "amount", "mint", "extDataHash", "changeCommitment"] as const;
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

/**
 * The leaf a withdrawal inserts for what is left of the spent note:
 * Poseidon(changePrecommitment, remaining, mintField, origin), where `origin`
 * is the deposit leaf the chain started from (a deposit note's own leaf).
 */
export function computeChangeLeaf(hasher: FieldHasher, changePrecommitment: Uint8Array, remaining: bigint, mint: Uint8Array, origin: Uint8Array): Uint8Array {
  return hasher.hash([changePrecommitment, u64Field(remaining, "remaining"), pubkeyToField(hasher, mint), origin]);
}

const ONE = bigIntToBytes32(1n);
const TWO = bigIntToBytes32(2n);

/**
 * The change note's secrets, from the spent note's: changeNullifier =
 * Poseidon(nullifier, secret, 1), changeSecret = Poseidon(nullifier, secret, 2).
 * Every wallet uses this rule, so any wallet recovers any other's chain from
 * the original note alone, and nobody without the secrets can value a change
 * leaf. (The circuit does not enforce it: it is the wallets' rule.)
 */
export function deriveChangeSecrets(hasher: FieldHasher, nullifier: Uint8Array, secret: Uint8Array): { nullifier: Uint8Array; secret: Uint8Array } {
  return { nullifier: hasher.hash([nullifier, secret, ONE]), secret: hasher.hash([nullifier, secret, TWO]) };
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

/** Everything the seven public signals are recomputed from; nothing comes from a client's own signals. */
export interface WithdrawalStatement {
  root: Uint8Array;
  nullifierHash: Uint8Array;
  /** 32 public-key bytes. */
  recipient: Uint8Array;
  /** The part of the note withdrawn (the request's depositSize). */
  amount: bigint;
  /** 32 public-key bytes. */
  mint: Uint8Array;
  terms: RelayTerms;
  /** The change leaf the withdrawal inserts (32 bytes, a field element). */
  changeCommitment: Uint8Array;
}

/** The circuit's public signals `root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment`, 32 bytes each. */
export function withdrawalPublicSignals(hasher: FieldHasher, s: WithdrawalStatement): Uint8Array[] {
  return [
    s.root,
    s.nullifierHash,
    pubkeyToField(hasher, s.recipient),
    u64Field(s.amount, "amount"),
    pubkeyToField(hasher, s.mint),
    computeExtDataHash(hasher, s.terms),
    s.changeCommitment,
  ];
}
