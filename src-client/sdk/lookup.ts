/**
 * Where a withdrawal's two lookups come from: the note's Merkle path and the
 * check that its nullifier is unspent. Asked of the relay that then submits
 * the withdrawal, they tell it which deposit (leaf) the withdrawal spends, so
 * by default they never go there as such (docs/privacy.md):
 *
 * - `chain`: the tree is rebuilt from the pool program's DepositEvents read
 *   over Solana JSON-RPC, and the nullifier account is looked up there; the
 *   relay is asked only for its public root (get_merkle).
 * - `decoys` (the default): the relay's indexer is asked, but for the leaf
 *   among `decoys` random other leaves and for the nullifier hash among as
 *   many random ones, in random order, from a client without the session's
 *   token on connections of its own.
 * - `relay-links-deposit`: the relay is asked for exactly this leaf and
 *   nullifier (the behaviour before), so it can link the deposit to the
 *   withdrawal: for callers who accept that.
 */
import { PublicKey, type Connection, type Finality } from "@solana/web3.js";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { bytesEqual, toHex } from "../../src-shared/encoding/bytes";
import { bigIntToBytes32 } from "../../src-shared/encoding/field";
import {
  DEFAULT_POOL_PROGRAM_ID,
  decodePoolEventLogs,
  decodeTreeAccount,
  isKnownRoot,
  poolNullifierAddress,
  poolTreeAddress,
  type TreeAccountData,
} from "../../src-shared/pool-program";
import { redactUrl } from "../../src-shared/redact-url";
import { err, ok, type Result } from "../../src-shared/result";
import { chainConnection } from "./chain";
import { ClientError, type ApiFailure, type ApiResult } from "./api-result";
import type { RelayClient } from "./http";
import { TREE_DEPTH } from "./requests";
import { randomFieldElement, type DepositNote, type RandomSource } from "./note";
import { separateConnectionFetch } from "./separate-connection";
import { getNoteProof, pathFromLeaves, type NoteProofError, type VerifiedNoteProof } from "./tree";
import type { MerkleProof, NullifierStatus } from "../../src-shared/api/public";

/** Decoy leaves (and decoy nullifier hashes) sent with the real one when none is configured. */
export const DEFAULT_DECOYS = 8;

export type NoteLookup =
  /**
   * A solana network: the tree from the pool's on-chain deposit events and the
   * nullifier account, over this JSON-RPC endpoint (a URL or a Connection).
   * The relay is asked only for its root.
   */
  | { kind: "chain"; rpc: string | Connection; programId?: string }
  /**
   * Any relay (the sandbox has no RPC): get_proof of the leaf among `decoys`
   * random others and get_nullifier of the hash among `decoys` random ones,
   * shuffled, sent through `client` (default: the relay's URL with no token,
   * one connection per request). Give a client of another relay, or one whose
   * fetch goes through another network path, to separate them further.
   */
  | { kind: "decoys"; decoys?: number; client?: RelayClient }
  /** The relay is told exactly which leaf and nullifier this withdrawal spends: it can link the deposit to the withdrawal. */
  | { kind: "relay-links-deposit" };

export interface NoteSourceOptions {
  hasher: FieldHasher;
  /** Default: crypto.getRandomValues. */
  random?: RandomSource;
}

/** The lookups of one note, wherever they go. */
export interface NoteSource {
  readonly kind: NoteLookup["kind"];
  /** Whether the note's nullifier is spent: `address` is its nullifier account, or null. */
  spent(): Promise<ApiResult<NullifierStatus>>;
  /**
   * The same, once /relay has carried the nullifier hash to the relay: asking
   * its get_nullifier then tells it nothing new (the chain source still reads
   * the chain).
   */
  spentAfterRelay(): Promise<ApiResult<NullifierStatus>>;
  /** The note's Merkle path, checked to rebuild a root the relay accepts. */
  path(): Promise<Result<VerifiedNoteProof, NoteProofError>>;
}

const defaultRandom: RandomSource = (buf) => void globalThis.crypto.getRandomValues(buf);

/** A uniform integer in [0, n), n ≤ 2^32, by rejection sampling. */
function randomBelow(n: number, random: RandomSource): number {
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError(`randomBelow: ${n}`);
  const limit = Math.floor(2 ** 32 / n) * n;
  const buf = new Uint8Array(4);
  for (;;) {
    random(buf);
    const x = new DataView(buf.buffer).getUint32(0);
    if (x < limit) return x % n;
  }
}

/** Fisher–Yates with `random`. */
export function shuffled<T>(items: readonly T[], random: RandomSource = defaultRandom): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomBelow(i + 1, random);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * `leafIndex` and up to `decoys` distinct other indices below `leafCount`,
 * drawn uniformly, in random order: what a get_proof lookup asks for so the
 * relay learns only that the note is one of them.
 */
export function leafIndicesWithDecoys(leafIndex: number, leafCount: number, decoys: number, random: RandomSource = defaultRandom): number[] {
  const count = Math.max(leafCount, leafIndex + 1);
  const others = count - 1;
  const chosen = new Set<number>([leafIndex]);
  if (decoys >= others) for (let i = 0; i < count; i++) chosen.add(i);
  else while (chosen.size < decoys + 1) chosen.add(randomBelow(count, random));
  return shuffled([...chosen], random);
}

function checkDecoys(decoys: number | undefined): number {
  const k = decoys ?? DEFAULT_DECOYS;
  if (!Number.isInteger(k) || k < 0 || k > 64) throw new RangeError(`decoys must be a whole number from 0 to 64, got ${decoys}`);
  return k;
}

/**
 * The lookups for `note` as `lookup` says (default: decoys). `client` is the
 * relay that will submit the withdrawal; it is asked nothing that names the
 * note except under `relay-links-deposit`.
 */
export function noteSource(client: RelayClient, note: DepositNote, lookup: NoteLookup | undefined, options: NoteSourceOptions): NoteSource {
  const random = options.random ?? defaultRandom;
  const l = lookup ?? { kind: "decoys" };
  switch (l.kind) {
    case "relay-links-deposit":
      return {
        kind: l.kind,
        spent: () => client.getNullifier(note.mint, note.nullifierHash, note.network),
        spentAfterRelay: () => client.getNullifier(note.mint, note.nullifierHash, note.network),
        path: () => getNoteProof(client, note, { hasher: options.hasher }),
      };
    case "decoys": {
      const decoys = checkDecoys(l.decoys);
      // No token, and (unless the caller's client injects its own fetch) no connection shared with the session.
      const lookupClient = l.client ?? client.withoutSession(client.injectedFetch ?? separateConnectionFetch);
      return {
        kind: l.kind,
        spent: () => nullifierAmongDecoys(lookupClient, note, decoys, random),
        spentAfterRelay: () => client.getNullifier(note.mint, note.nullifierHash, note.network),
        path: () =>
          getNoteProof(lookupClient, note, {
            hasher: options.hasher,
            fetchProof: async (leafIndex, leafCount) => {
              let mine: ApiResult<MerkleProof> | null = null;
              for (const index of leafIndicesWithDecoys(leafIndex, leafCount, decoys, random)) {
                const r = await lookupClient.getProof(note.mint, index, note.network);
                if (!r.ok && r.status === 0) return r; // the relay is gone: no use asking on
                if (index === leafIndex) mine = r;
              }
              return mine!;
            },
          }),
      };
    }
    case "chain": {
      const connection = typeof l.rpc === "string" ? chainConnection(l.rpc) : l.rpc;
      const programId = l.programId ?? DEFAULT_POOL_PROGRAM_ID;
      const publicClient = client.withoutSession(client.injectedFetch ?? separateConnectionFetch);
      return {
        kind: l.kind,
        spent: () => chainNullifierStatus(connection, programId, note),
        spentAfterRelay: () => chainNullifierStatus(connection, programId, note),
        path: () => chainNoteProof(connection, programId, publicClient, note, options.hasher),
      };
    }
  }
}

/** get_nullifier of the note's hash among `decoys` random field elements, in random order; the note's answer. */
async function nullifierAmongDecoys(client: RelayClient, note: DepositNote, decoys: number, random: RandomSource): Promise<ApiResult<NullifierStatus>> {
  const hashes = [note.nullifierHash, ...Array.from({ length: decoys }, () => bigIntToBytes32(randomFieldElement(random)))];
  let mine: ApiResult<NullifierStatus> | null = null;
  for (const h of shuffled(hashes, random)) {
    const r = await client.getNullifier(note.mint, h, note.network);
    if (!r.ok && r.status === 0) return r;
    if (h === note.nullifierHash) mine = r;
  }
  return mine!;
}

const rpcFailure = (connection: Connection, what: string, e: unknown): ApiFailure => ({
  ok: false,
  status: 0,
  error: ClientError.RpcError,
  message: `${what} at the RPC ${redactUrl(connection.rpcEndpoint)}: ${e instanceof Error ? e.message : String(e)}`,
});

/** The nullifier account over RPC (PDA ["nullifier", mint, nullifierHash] of the pool program): spent when the program owns it. */
export async function chainNullifierStatus(connection: Connection, programId: string, note: DepositNote): Promise<ApiResult<NullifierStatus>> {
  const address = poolNullifierAddress(programId, note.mint, note.nullifierHash);
  try {
    const info = await connection.getAccountInfo(new PublicKey(address), "confirmed");
    const spent = info !== null && info.owner.equals(new PublicKey(programId));
    return { ok: true, status: 200, value: spent ? { address, json: { spent: true } } : { address: null, json: null } };
  } catch (e) {
    return rpcFailure(connection, "getAccountInfo of the nullifier account", e);
  }
}

/** The pool's tree account over RPC. */
async function readTreeAccount(connection: Connection, programId: string, treeAddress: string): Promise<Result<TreeAccountData, string>> {
  const info = await connection.getAccountInfo(new PublicKey(treeAddress), "confirmed");
  if (!info || !info.owner.equals(new PublicKey(programId)))
    return err(`program ${programId} has no pool at ${treeAddress} on this cluster (no tree account): check the RPC and the program id`);
  return decodeTreeAccount(new Uint8Array(info.data));
}

/** Signatures per getSignaturesForAddress call (the RPC's maximum). */
const SIGNATURES_PER_CALL = 1000;
/** getTransaction calls in flight at once. */
const TRANSACTIONS_IN_FLIGHT = 8;

/**
 * The leaves the pool program inserted, by leaf index, read from the
 * DepositEvents in the logs of every transaction that touched the tree
 * account (getSignaturesForAddress back to the first, then getTransaction).
 */
export async function depositLeavesFromChain(
  connection: Connection,
  programId: string,
  treeAddress: string,
  commitment: Finality = "confirmed",
): Promise<Map<number, Uint8Array>> {
  const address = new PublicKey(treeAddress);
  const signatures: string[] = [];
  let before: string | undefined;
  for (;;) {
    const batch = await connection.getSignaturesForAddress(address, { limit: SIGNATURES_PER_CALL, ...(before ? { before } : {}) }, commitment);
    for (const s of batch) if (s.err === null) signatures.push(s.signature);
    if (batch.length < SIGNATURES_PER_CALL) break;
    before = batch[batch.length - 1]!.signature;
  }
  const leaves = new Map<number, Uint8Array>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < signatures.length) {
      const signature = signatures[next++]!;
      const tx = await connection.getTransaction(signature, { commitment, maxSupportedTransactionVersion: 0 });
      if (!tx?.meta || tx.meta.err) continue;
      for (const e of decodePoolEventLogs(tx.meta.logMessages, programId)) if (e.name === "DepositEvent") leaves.set(e.leafIndex, e.commitment);
    }
  };
  await Promise.all(Array.from({ length: TRANSACTIONS_IN_FLIGHT }, worker));
  return leaves;
}

/**
 * The note's path rebuilt from the chain: the tree is rebuilt at the relay's
 * nextIndex (get_merkle: public, names no note) so the root is one the relay
 * has indexed, and that root must equal the relay's and be in the tree
 * account's root history on chain.
 */
export async function chainNoteProof(
  connection: Connection,
  programId: string,
  relay: RelayClient,
  note: DepositNote,
  hasher: FieldHasher,
  attempts = 3,
): Promise<Result<VerifiedNoteProof, NoteProofError>> {
  const leafIndex = note.deposit?.leafIndex ?? null;
  if (leafIndex === null) {
    const why = note.deposit ? `the deposit ${note.deposit.signature} failed and has no leaf; revert it` : "the note was never deposited";
    return err({ kind: "no-leaf", message: why });
  }
  const treeAddress = poolTreeAddress(programId, note.mint);
  const relayTree = await relay.getMerkle(note.mint, note.network);
  if (!relayTree.ok) return err({ kind: "api", failure: relayTree });
  const { root: relayRoot, nextIndex } = relayTree.value.json;
  if (nextIndex <= leafIndex)
    return err({ kind: "unstable", message: `the relay has indexed ${nextIndex} leaves, not yet leaf ${leafIndex}: try again shortly` });

  let lastProblem = "";
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 500));
    let account: Result<TreeAccountData, string>;
    let leaves: Map<number, Uint8Array>;
    try {
      account = await readTreeAccount(connection, programId, treeAddress);
      if (!account.ok) return err({ kind: "mismatch", message: account.error });
      leaves = await depositLeavesFromChain(connection, programId, treeAddress);
    } catch (e) {
      return err({ kind: "api", failure: rpcFailure(connection, "reading the pool's deposits", e) });
    }
    if (account.value.nextIndex < nextIndex) {
      lastProblem = `the chain's tree has ${account.value.nextIndex} leaves, fewer than the relay's ${nextIndex}: the RPC lags behind`;
      continue;
    }
    const missing = Array.from({ length: nextIndex }, (_, i) => i).find((i) => !leaves.has(i));
    if (missing !== undefined) {
      lastProblem = `the RPC's history lacks the deposit event of leaf ${missing} (an RPC without full transaction history cannot rebuild the tree)`;
      continue;
    }
    const ordered = Array.from({ length: nextIndex }, (_, i) => leaves.get(i)!);
    if (!bytesEqual(ordered[leafIndex]!, note.commitment)) {
      return err({
        kind: "mismatch",
        message: `the chain's leaf ${leafIndex} is 0x${toHex(ordered[leafIndex]!)}, not this note's commitment 0x${toHex(note.commitment)}`,
      });
    }
    const built = pathFromLeaves(hasher, ordered, leafIndex, TREE_DEPTH);
    if (!bytesEqual(built.root, relayRoot)) {
      return err({
        kind: "mismatch",
        message: `the chain's first ${nextIndex} deposits rebuild root 0x${toHex(built.root)} but the relay's root is 0x${toHex(relayRoot)}: the relay does not serve program ${programId}'s pool at this RPC`,
      });
    }
    if (!isKnownRoot(account.value, built.root)) {
      return err({
        kind: "mismatch",
        message: `root 0x${toHex(built.root)} is not in the tree account's root history on chain: the relay's root is too old, try again`,
      });
    }
    return ok({ address: treeAddress, leafIndex, leaf: note.commitment, root: built.root, path: built.path, indices: built.indices, nextIndex });
  }
  return err({ kind: "unstable", message: lastProblem });
}
