/**
 * Following a chain of notes (protocol v3, DESIGN §10): from any note of a
 * chain (the original deposit note included), whether it was spent, which
 * withdrawal spent it (the part it took, its change leaf), and the change
 * note that withdrawal left, recomputed by the chain rule and checked against
 * the leaf the pool inserted; then the same for that change note, until a
 * note is unspent. What is left now is that note's value.
 *
 * Two ledgers answer those questions:
 * - `chainLedger` reads the pool's history over Solana RPC: every withdrawal's
 *   amount and change leaf from its instruction data. Exact.
 * - `relayLedger` asks a relay: get_nullifier (among decoys), then the leaves
 *   after the spent note's (get_node) for the change leaf of one of the
 *   amounts the withdrawal could have taken: a standard amount, the whole
 *   value, or an amount the note file recorded. A withdrawal of any other
 *   amount (`--exact`, another wallet) is found only on the chain.
 */
import type { Connection } from "@solana/web3.js";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { computeChangeLeaf } from "../../src-shared/crypto/protocol";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { bytesEqual, toHex } from "../../src-shared/encoding/bytes";
import { DEFAULT_POOL_PROGRAM_ID } from "../../src-shared/pool-program";
import { standardAmounts } from "../../src-shared/privacy/standard-amounts";
import { err, ok, type Result } from "../../src-shared/result";
import type { ApiFailure, ApiResult } from "./api-result";
import { chainConnection } from "./chain";
import type { PoolHistory } from "./chain-history";
import type { RelayClient } from "./http";
import { chainNullifierStatus, decoyNullifierSet, decoySeed, DEFAULT_DECOYS, poolHistoryOf } from "./lookup";
import { changeNoteOf, nextSecrets, noteLeafIndex, noteOrigin, notePiece, notePrecommitment, withLeafIndex, type DepositNote } from "./note";
import { TREE_DEPTH } from "./requests";
import { separateConnectionFetch } from "./separate-connection";

/** The withdrawal that spent a note, as a ledger found it. */
export interface FoundWithdrawal {
  /** The part withdrawn. */
  amount: bigint;
  changeCommitment: Uint8Array;
  /** Null when the ledger could not place it (then the chain cannot go on). */
  changeLeafIndex: number | null;
  /** The transaction's signature, when the ledger reads transactions. */
  signature: string | null;
  fee: bigint | null;
  recipient: string | null;
}

/** Where the SDK reads what happened to a chain's notes. */
export interface NoteLedger {
  readonly kind: "chain" | "relay";
  /** Whether the note's nullifier is spent. */
  spent(note: DepositNote): Promise<ApiResult<boolean>>;
  /**
   * The withdrawal that spent `note` (whose nullifier is spent), or null when
   * it cannot be found. `hints`: amounts it probably took (a pending file's).
   */
  withdrawalOf(note: DepositNote, hints: readonly bigint[]): Promise<ApiResult<FoundWithdrawal | null>>;
}

/** The change leaves a withdrawal from `note` could have inserted, by leaf (hex) → the part withdrawn. */
export function candidateChangeLeaves(hasher: FieldHasher, note: DepositNote, hints: readonly bigint[]): Map<string, bigint> {
  const mint = parsePublicKey(note.mint);
  if (!mint.ok) throw new Error(`note mint: ${mint.error}`);
  const next = nextSecrets(hasher, note.secrets);
  const precommitment = notePrecommitment(hasher, next.nullifier, next.secret);
  const origin = noteOrigin(note);
  const amounts = new Set<bigint>([note.amount, ...standardAmounts(1n, note.amount), ...hints.filter((a) => a > 0n && a <= note.amount)]);
  const out = new Map<string, bigint>();
  for (const a of amounts) out.set(toHex(computeChangeLeaf(hasher, precommitment, note.amount - a, mint.value, origin)), a);
  return out;
}

/**
 * A relay as the ledger: the spent check among decoy nullifier hashes (the
 * note's own set, as a withdrawal asks it), and the change leaf looked for
 * among the leaves inserted after the spent note's (get_node, one request a
 * leaf; none names the note), through `client` (default: no token, one
 * connection per request).
 */
export function relayLedger(relay: RelayClient, hasher: FieldHasher, options: { decoys?: number; client?: RelayClient } = {}): NoteLedger {
  const client = options.client ?? relay.withoutSession(relay.injectedFetch ?? separateConnectionFetch);
  const decoys = options.decoys ?? DEFAULT_DECOYS;
  return {
    kind: "relay",
    async spent(note) {
      let mine: ApiResult<boolean> | null = null;
      for (const h of decoyNullifierSet(decoySeed(note), note.nullifierHash, decoys)) {
        const r = await client.getNullifier(note.mint, h, note.network);
        if (!r.ok && r.status === 0) return r;
        if (h === note.nullifierHash) mine = r.ok ? { ok: true, status: r.status, value: r.value.address !== null } : r;
      }
      return mine!;
    },
    async withdrawalOf(note, hints) {
      const candidates = candidateChangeLeaves(hasher, note, hints);
      const tree = await client.getMerkle(note.mint, note.network);
      if (!tree.ok) return tree;
      const from = (noteLeafIndex(note) ?? -1) + 1;
      for (let j = from; j < tree.value.json.nextIndex; j++) {
        const node = await client.getNode(note.mint, 2 ** TREE_DEPTH + j, note.network);
        if (!node.ok) return node;
        const amount = candidates.get(toHex(node.value.json.value));
        if (amount !== undefined) {
          return {
            ok: true,
            status: 200,
            value: { amount, changeCommitment: node.value.json.value, changeLeafIndex: j, signature: null, fee: null, recipient: null },
          };
        }
      }
      return { ok: true, status: 200, value: null };
    },
  };
}

/**
 * The chain as the ledger: the nullifier account, and the withdrawal read from
 * the pool's history (read once, and once more when a spent note's
 * withdrawal is not in it yet: the RPC's history may lag its accounts).
 */
export function chainLedger(rpc: string | Connection, programId: string = DEFAULT_POOL_PROGRAM_ID): NoteLedger {
  const connection = typeof rpc === "string" ? chainConnection(rpc) : rpc;
  let history: PoolHistory | null = null;
  const read = async (mint: string, fresh: boolean): Promise<ApiResult<PoolHistory>> => {
    if (history && !fresh) return { ok: true, status: 200, value: history };
    const h = await poolHistoryOf(connection, programId, mint);
    if (h.ok) history = h.value;
    return h;
  };
  return {
    kind: "chain",
    async spent(note) {
      const r = await chainNullifierStatus(connection, programId, note);
      return r.ok ? { ok: true, status: r.status, value: r.value.address !== null } : r;
    },
    async withdrawalOf(note) {
      for (const fresh of [false, true]) {
        const h = await read(note.mint, fresh);
        if (!h.ok) return h;
        const w = h.value.withdrawals.get(toHex(note.nullifierHash));
        if (w) return { ok: true, status: 200, value: { ...w } };
      }
      return { ok: true, status: 200, value: null };
    },
  };
}

/** One withdrawal of a chain, as followed. */
export interface FollowedPiece {
  /** The spent note's piece (0: the deposit note). */
  piece: number;
  nullifierHash: Uint8Array;
  amount: bigint;
  /** What the change note holds. */
  remaining: bigint;
  changeCommitment: Uint8Array;
  changeLeafIndex: number;
  signature: string | null;
  fee: bigint | null;
  recipient: string | null;
}

export interface FollowResult {
  /** The chain's unspent note now (the start itself when it is unspent). */
  current: DepositNote;
  /** The withdrawals found, oldest first. */
  pieces: FollowedPiece[];
}

export type FollowError =
  | { kind: "api"; failure: ApiFailure }
  /** A spent note whose withdrawal the ledger cannot find (the relay ledger finds standard amounts only). */
  | { kind: "not-found"; note: DepositNote; pieces: FollowedPiece[]; message: string }
  /** The withdrawal's change leaf is not the chain rule's for the amount it took: another wallet's rule. */
  | { kind: "foreign"; note: DepositNote; pieces: FollowedPiece[]; message: string };

/**
 * Follows the chain from `start` until an unspent note (or one worth
 * nothing, which no withdrawal can spend). `hints` are amounts the first
 * withdrawal probably took (a pending note file's).
 */
export async function followChain(
  hasher: FieldHasher,
  start: DepositNote,
  ledger: NoteLedger,
  options: { hints?: readonly bigint[]; maxPieces?: number; onPiece?: (p: FollowedPiece) => void } = {},
): Promise<Result<FollowResult, FollowError>> {
  const pieces: FollowedPiece[] = [];
  let current = start;
  let hints = options.hints ?? [];
  const limit = options.maxPieces ?? 1000;
  while (current.amount > 0n && pieces.length < limit) {
    const spent = await ledger.spent(current);
    if (!spent.ok) return err({ kind: "api", failure: spent });
    if (!spent.value) break;
    const found = await ledger.withdrawalOf(current, hints);
    if (!found.ok) return err({ kind: "api", failure: found });
    const piece = notePiece(current);
    if (found.value === null || found.value.changeLeafIndex === null) {
      const how =
        ledger.kind === "relay"
          ? ": the relay shows no change leaf of a standard amount, the whole value or the amount the file recorded; read the chain with --rpc"
          : "";
      return err({
        kind: "not-found",
        note: current,
        pieces,
        message: `the note of piece ${piece} (nullifierHash 0x${toHex(current.nullifierHash)}) was spent, but its withdrawal's change leaf was not found${how}`,
      });
    }
    const w = { ...found.value, changeLeafIndex: found.value.changeLeafIndex };
    if (w.amount <= 0n || w.amount > current.amount) {
      return err({
        kind: "foreign",
        note: current,
        pieces,
        message: `the withdrawal of piece ${piece} took ${w.amount}, not within the note's value ${current.amount}`,
      });
    }
    const change = changeNoteOf(hasher, current, w.amount, current.createdAt);
    if (!bytesEqual(change.commitment, w.changeCommitment)) {
      return err({
        kind: "foreign",
        note: current,
        pieces,
        message:
          `the withdrawal of piece ${piece} (${w.amount}) inserted change leaf 0x${toHex(w.changeCommitment)}, not 0x${toHex(change.commitment)} ` +
          "that the chain rule gives: its change note was not made by Poseidon(nullifier, secret, 1|2), so this wallet cannot open it",
      });
    }
    const p: FollowedPiece = {
      piece,
      nullifierHash: current.nullifierHash,
      amount: w.amount,
      remaining: change.amount,
      changeCommitment: w.changeCommitment,
      changeLeafIndex: w.changeLeafIndex,
      signature: w.signature,
      fee: w.fee,
      recipient: w.recipient,
    };
    pieces.push(p);
    options.onPiece?.(p);
    current = withLeafIndex(change, w.changeLeafIndex);
    hints = [];
  }
  return ok({ current, pieces });
}

/** What a note file's state resolves to. */
export interface ResolvedNote extends FollowResult {
  /**
   * `pending` when the file waited for a withdrawal: `landed` (followed to
   * its change), `not-landed` (the spent note is still unspent: back to it).
   */
  pending: "landed" | "not-landed" | null;
}

/**
 * Where a note file stands now. A pending file (written before its
 * withdrawal was sent) is resolved from the note it spends: unspent means
 * nothing left the pool, so that note is current again; spent means the
 * withdrawal landed, and the chain is followed from there with the file's
 * amount as the first hint (so even a relay ledger finds a non-standard
 * piece the file recorded). A confirmed file is followed from its own note.
 */
export async function resolveNote(hasher: FieldHasher, note: DepositNote, ledger: NoteLedger): Promise<Result<ResolvedNote, FollowError>> {
  const start = note.pending ? note.pending.spends : note;
  const followed = await followChain(hasher, start, ledger, note.pending ? { hints: [note.pending.amount] } : {});
  if (!followed.ok) return followed;
  const pending = note.pending ? (followed.value.pieces.length > 0 ? "landed" : "not-landed") : null;
  return ok({ ...followed.value, pending });
}
