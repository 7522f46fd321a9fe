/**
 * Where a withdrawal's two lookups come from: the note's Merkle path and the
 * check that its nullifier is unspent. Asked of the relay that then submits
 * the withdrawal, they tell it which leaf the withdrawal spends, so by
 * default they never go there as such (docs/privacy.md):
 *
 * - `chain`: the tree is rebuilt from the pool program's history read over
 *   Solana JSON-RPC (deposit and change leaves), and the nullifier account is
 *   looked up there; the relay is asked only for its public root (get_merkle).
 * - `decoys` (the default): the relay's indexer is asked, but for the leaf
 *   among `decoys` other leaves that could hold the amount withdrawn and for
 *   the nullifier hash among as many others, from a client without the
 *   session's token on connections of its own. Which leaves could hold it
 *   (deposits of at least the amount, and change leaves) comes from the
 *   relay's whole public leaf list (get_leaves, read from leaf 0 whatever the
 *   note), unless the caller gives the pool's leaves. Both sets follow from
 *   the note's secrets and its piece (a retry asks the same), and every
 *   answered path is checked against the relay's root.
 * - `relay-links-deposit`: the relay is asked for exactly this leaf and
 *   nullifier, so it can link the deposit to the withdrawal: for callers who
 *   accept that.
 */
import { createHash } from "node:crypto";
import { PublicKey, type Connection } from "@solana/web3.js";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { bytesEqual, toHex } from "../../src-shared/encoding/bytes";
import { bigIntToBytes32 } from "../../src-shared/encoding/field";
import {
  DEFAULT_POOL_PROGRAM_ID,
  decodeTreeAccount,
  isKnownRoot,
  poolNullifierAddress,
  poolTreeAddress,
  type TreeAccountData,
} from "../../src-shared/pool-program";
import { redactUrl } from "../../src-shared/redact-url";
import type { Network } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";
import { chainConnection } from "./chain";
import { readPoolHistory, type PoolHistory, type PoolLeaf } from "./chain-history";
import { ClientError, type ApiFailure, type ApiResult } from "./api-result";
import type { RelayClient } from "./http";
import { TREE_DEPTH } from "./requests";
import { noteLeafIndex, notePiece, randomFieldElement, type DepositNote, type RandomSource } from "./note";
import { separateConnectionFetch } from "./separate-connection";
import { getNoteProof, leafIndexBits, noLeafReason, pathFromLeaves, rootFromPath, type NoteProofError, type VerifiedNoteProof } from "./tree";
import type { NullifierStatus } from "../../src-shared/api/public";

/** What the chain made public about a leaf: its kind, and a deposit's amount (null when not known). */
export type KnownLeaf = Pick<PoolLeaf, "kind" | "amount">;

/** Decoy leaves (and decoy nullifier hashes) sent with the real one when none is configured. */
export const DEFAULT_DECOYS = 8;

export type NoteLookup =
  /**
   * A solana network: the tree from the pool's on-chain history (deposit and
   * change leaves) and the nullifier account, over this JSON-RPC endpoint (a
   * URL or a Connection). The relay is asked only for its root.
   */
  | { kind: "chain"; rpc: string | Connection; programId?: string }
  /**
   * Any relay (the sandbox has no RPC): get_proof and get_node of the leaf
   * among `decoys` others that could hold the amount withdrawn, and
   * get_nullifier of the hash among `decoys` others, sent through `client`
   * (default: the relay's URL with no token, one connection per request).
   * Which leaves could hold it comes from the relay's get_leaves (the whole
   * list, from leaf 0). The sets follow from the note and its piece, so a
   * retry asks the same. Give a client of another relay, or one whose fetch
   * goes through another network path, to separate them further.
   */
  | {
      kind: "decoys";
      decoys?: number;
      client?: RelayClient;
      /**
       * The pool's leaves with their kinds and deposit amounts, when the wallet
       * already knows them (readPoolHistory, or any public index). Default: the
       * relay's get_leaves, read in pages from leaf 0. Either way decoys are
       * drawn only among leaves that could hold the amount withdrawn; a relay
       * that does not publish its leaves (404) leaves every leaf a candidate.
       */
      leaves?: ReadonlyMap<number, KnownLeaf>;
    }
  /** The relay is told exactly which leaf and nullifier this withdrawal spends: it can link the deposit to the withdrawal. */
  | { kind: "relay-links-deposit" };

export interface NoteSourceOptions {
  hasher: FieldHasher;
  /** Unused since decoys follow from the note (kept so older callers still compile). */
  random?: RandomSource;
  /**
   * The part of the note to withdraw: decoy leaves are drawn among those that
   * could hold it. Default: the note's value.
   */
  amount?: bigint;
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

const u32 = (x: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(x);
  return b;
};

/**
 * The seed of a note's decoys: SHA-256 of its secrets and its piece. Nobody
 * without the secrets can tell which of the asked leaves it ranks first, and
 * the same note asks the same sets on every retry: a relay that refuses or
 * garbles answers to make the wallet ask again learns nothing from the second
 * set that the first did not show.
 */
export function decoySeed(note: DepositNote): Buffer {
  return createHash("sha256")
    .update("private-withdrawal-relay/decoys/v3\n")
    .update(bigIntToBytes32(note.secrets.nullifier))
    .update(bigIntToBytes32(note.secrets.secret))
    .update(u32(notePiece(note)))
    .digest();
}

const rank = (seed: Uint8Array, tag: string, index: number): string => createHash("sha256").update(seed).update(tag).update(u32(index)).digest("hex");

/**
 * `leafIndex` and the `decoys` candidates that rank first under the note's
 * seed, in an order the seed fixes too. Ranking each leaf on its own (rather
 * than sampling the current list) keeps the set when the pool grows: a new
 * leaf replaces a decoy only when it ranks above it.
 */
export function decoyLeafSet(seed: Uint8Array, leafIndex: number, candidates: readonly number[], decoys: number): number[] {
  const others = [...new Set(candidates)].filter((i) => i !== leafIndex);
  const chosen = others
    .map((i) => [rank(seed, "leaf", i), i] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .slice(0, decoys)
    .map(([, i]) => i);
  return [...chosen, leafIndex]
    .map((i) => [rank(seed, "order", i), i] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, i]) => i);
}

/** The note's nullifierHash among `decoys` field elements that follow from the seed, in an order the seed fixes. */
export function decoyNullifierSet(seed: Uint8Array, nullifierHash: Uint8Array, decoys: number): Uint8Array[] {
  let counter = 0;
  const stream: RandomSource = (buf) => {
    for (let off = 0; off < buf.length; off += 32) {
      const block = createHash("sha256").update(seed).update("nullifier").update(u32(counter++)).digest();
      buf.set(block.subarray(0, Math.min(32, buf.length - off)), off);
    }
  };
  const hashes = [nullifierHash, ...Array.from({ length: decoys }, () => bigIntToBytes32(randomFieldElement(stream)))];
  return hashes
    .map((h, i) => [rank(seed, "nullifier-order", i), h] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, h]) => h);
}

/** Whether a leaf could hold a note of at least `amount`: a change leaf (its value is private), a deposit of at least it, or one whose amount is unknown. */
export function couldHold(leaf: KnownLeaf, amount: bigint): boolean {
  return leaf.kind === "change" || leaf.amount === null || leaf.amount >= amount;
}

/**
 * The leaves below `leafCount` that could hold a note of at least `amount`
 * (DESIGN §10): every change leaf and every deposit of at least `amount` (a
 * deposit whose amount is not known counts: it could). Without the pool's
 * leaves (`leaves` null: a relay that does not publish them) every leaf is a
 * candidate.
 */
export function eligibleLeaves(leaves: ReadonlyMap<number, KnownLeaf> | null, leafCount: number, amount: bigint): number[] {
  const all = Array.from({ length: leafCount }, (_, i) => i);
  if (!leaves) return all;
  return all.filter((i) => {
    const leaf = leaves.get(i);
    return leaf !== undefined && couldHold(leaf, amount);
  });
}

/** How many leaves could hold a withdrawal of `amount`: its anonymity set. */
export function anonymitySet(leaves: ReadonlyMap<number, KnownLeaf>, amount: bigint): number {
  let n = 0;
  for (const leaf of leaves.values()) if (couldHold(leaf, amount)) n++;
  return n;
}

/**
 * A relay's public leaf list (get_leaves) as a wallet reads it: always from
 * leaf 0, in the relay's largest pages, and then on from where it stopped as
 * the pool grows. Every wallet of the pool asks the same requests whichever
 * note it holds, so the list tells the relay nothing about the note; a range
 * around the note's own leaf would.
 */
export class RelayLeafList {
  private readonly known = new Map<number, KnownLeaf>();
  /** Set when the relay does not publish its leaves (an older relay answers 404). */
  private unpublished = false;

  constructor(
    private readonly client: RelayClient,
    private readonly mint: string,
    private readonly network: Network,
  ) {}

  /**
   * The first `count` leaves at least (more when the list grew meanwhile); null when
   * the relay does not publish them. `unstable` when the relay lists fewer than
   * `count` (its get_merkle ran ahead of its list); `inconsistent` when a page does
   * not start where it was asked to.
   */
  async upTo(count: number): Promise<Result<ReadonlyMap<number, KnownLeaf> | null, NoteProofError>> {
    if (this.unpublished) return ok(null);
    while (this.known.size < count) {
      const from = this.known.size;
      const page = await this.client.getLeaves(this.mint, this.network, { from });
      if (!page.ok) {
        // An unknown route, not an unknown pool: a relay from before get_leaves. Every leaf stays a candidate.
        if (page.status === 404 && page.error !== "PoolNotFound") {
          this.unpublished = true;
          return ok(null);
        }
        return err({ kind: "api", failure: page });
      }
      const { leaves } = page.value.json;
      if (page.value.json.from !== from)
        return err({ kind: "inconsistent", message: `the relay answered get_leaves from ${from} with a page from ${page.value.json.from}` });
      if (leaves.length === 0)
        return err({ kind: "unstable", message: `the relay lists ${from} leaves, fewer than the ${count} its tree has: try again shortly` });
      for (const l of leaves) this.known.set(l.index, { kind: l.kind, amount: l.amount === null ? null : BigInt(l.amount) });
    }
    return ok(this.known);
  }
}

/** The pool's leaves as the relay lists them, up to its get_merkle nextIndex (a plan's anonymity sets); null when it does not publish them. */
export async function relayLeaves(
  client: RelayClient,
  mint: string,
  network: Network,
): Promise<Result<{ leaves: ReadonlyMap<number, KnownLeaf> | null; nextIndex: number }, NoteProofError>> {
  const tree = await client.getMerkle(mint, network);
  if (!tree.ok) return err({ kind: "api", failure: tree });
  const nextIndex = tree.value.json.nextIndex;
  const list = await new RelayLeafList(client, mint, network).upTo(nextIndex);
  return list.ok ? ok({ leaves: list.value, nextIndex }) : list;
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
      const seed = decoySeed(note);
      // Read once per source and extended on retries: the whole list, never a range chosen by the note.
      const relayList = new RelayLeafList(lookupClient, note.mint, note.network);
      return {
        kind: l.kind,
        spent: () => nullifierAmongDecoys(lookupClient, note, decoyNullifierSet(seed, note.nullifierHash, decoys)),
        spentAfterRelay: () => client.getNullifier(note.mint, note.nullifierHash, note.network),
        path: () =>
          decoyPath(lookupClient, note, {
            hasher: options.hasher,
            seed,
            decoys,
            amount: options.amount ?? note.amount,
            leaves: l.leaves ?? relayList,
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

/** get_nullifier of each hash of `hashes` (the note's among decoys), in that order; the note's answer. */
async function nullifierAmongDecoys(client: RelayClient, note: DepositNote, hashes: readonly Uint8Array[]): Promise<ApiResult<NullifierStatus>> {
  let mine: ApiResult<NullifierStatus> | null = null;
  for (const h of hashes) {
    const r = await client.getNullifier(note.mint, h, note.network);
    if (!r.ok && r.status === 0) return r;
    if (h === note.nullifierHash) mine = r;
  }
  return mine!;
}

/** Heap order of get_node: leaf j is node 2^32 + j. */
const leafNode = (j: number): number => 2 ** TREE_DEPTH + j;

/**
 * Whether the leaf list agrees with what the note knows of its own leaf: its
 * kind, and that it could hold the amount. A list that says otherwise would
 * leave the note's leaf the one odd member of the set asked, so the lookup
 * stops before asking anything about it.
 */
function ownLeafProblem(leaves: ReadonlyMap<number, KnownLeaf>, note: DepositNote, leafIndex: number, amount: bigint): string | null {
  const listed = leaves.get(leafIndex);
  if (!listed) return null;
  const kind = note.change ? "change" : "deposit";
  if (listed.kind !== kind) return `the leaf list says leaf ${leafIndex} is a ${listed.kind} leaf, but this note's leaf there is a ${kind} leaf`;
  if (!couldHold(listed, amount)) return `the leaf list says leaf ${leafIndex} is a deposit of ${listed.amount}, but this note holds at least ${amount}`;
  return null;
}

/**
 * The note's path asked among decoys: get_proof and get_node (the leaf's
 * value) of every leaf of the set, between two get_merkle reads. The set is
 * drawn among the leaves that could hold the amount (the caller's list, or
 * the relay's get_leaves). With the tree unchanged between the reads, every
 * answered path must rebuild that root from its leaf: one that does not is
 * an inconsistent relay, and the lookup stops rather than ask again. A tree
 * that grew meanwhile is read again (the set stays the same but for leaves
 * that rank into it).
 */
async function decoyPath(
  client: RelayClient,
  note: DepositNote,
  o: {
    hasher: FieldHasher;
    seed: Uint8Array;
    decoys: number;
    amount: bigint;
    leaves: ReadonlyMap<number, KnownLeaf> | RelayLeafList | null;
    attempts?: number;
  },
): Promise<Result<VerifiedNoteProof, NoteProofError>> {
  const leafIndex = noteLeafIndex(note);
  if (leafIndex === null) return err({ kind: "no-leaf", message: noLeafReason(note) });
  const attempts = o.attempts ?? 3;
  let lastProblem: string | null = null;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const before = await client.getMerkle(note.mint, note.network);
    if (!before.ok) return err({ kind: "api", failure: before });
    const { nextIndex, root } = before.value.json;
    if (leafIndex >= nextIndex)
      return err({ kind: "unstable", message: `the relay has indexed ${nextIndex} leaves, not yet leaf ${leafIndex}: try again shortly` });
    let leaves: ReadonlyMap<number, KnownLeaf> | null;
    if (o.leaves instanceof RelayLeafList) {
      const listed = await o.leaves.upTo(nextIndex);
      if (!listed.ok) {
        if (listed.error.kind !== "unstable") return listed;
        lastProblem = listed.error.message;
        continue;
      }
      leaves = listed.value;
    } else leaves = o.leaves;
    const problem = leaves ? ownLeafProblem(leaves, note, leafIndex, o.amount) : null;
    if (problem) return err({ kind: "inconsistent", message: `${problem}: the relay's leaf list is false, so the lookup stops before asking for any path` });
    const set = decoyLeafSet(o.seed, leafIndex, eligibleLeaves(leaves, nextIndex, o.amount), o.decoys);
    const answers = new Map<number, { path: Uint8Array[]; indices: number[]; leaf: Uint8Array; address: string }>();
    for (const index of set) {
      const proof = await client.getProof(note.mint, index, note.network);
      if (!proof.ok) return err({ kind: "api", failure: proof });
      const node = await client.getNode(note.mint, leafNode(index), note.network);
      if (!node.ok) return err({ kind: "api", failure: node });
      answers.set(index, { ...proof.value.json, leaf: node.value.json.value, address: proof.value.address });
    }
    const after = await client.getMerkle(note.mint, note.network);
    if (!after.ok) return err({ kind: "api", failure: after });
    if (!bytesEqual(after.value.json.root, root) || after.value.json.nextIndex !== nextIndex) {
      lastProblem = null;
      continue;
    }

    for (const [index, a] of answers) {
      const bits = leafIndexBits(index);
      const problem =
        a.path.length !== TREE_DEPTH
          ? `${a.path.length} siblings, not ${TREE_DEPTH}`
          : a.indices.length !== TREE_DEPTH || a.indices.some((b, i) => b !== bits[i])
            ? `indices [${a.indices.join("")}] that do not describe leaf ${index}`
            : !bytesEqual(rootFromPath(o.hasher, a.leaf, a.path, a.indices), root)
              ? `a path that does not rebuild its root 0x${toHex(root)} from the leaf get_node gave`
              : null;
      if (problem) {
        return err({
          kind: "inconsistent",
          message: `the relay answered leaf ${index} with ${problem}, while the tree stayed the same: its answers disagree, so the lookup stops here instead of asking again`,
        });
      }
    }
    const mine = answers.get(leafIndex)!;
    if (!bytesEqual(mine.leaf, note.commitment)) {
      return err({
        kind: "mismatch",
        message: `the relay's leaf ${leafIndex} is 0x${toHex(mine.leaf)}, not this note's commitment 0x${toHex(note.commitment)}`,
      });
    }
    return ok({ address: mine.address, leafIndex, leaf: note.commitment, root, path: mine.path, indices: mine.indices, nextIndex });
  }
  return err({ kind: "unstable", message: lastProblem ?? `the tree changed during each of ${attempts} attempts; try again` });
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

/** The pool's history over RPC as a lookup failure when the RPC fails. */
export async function poolHistoryOf(connection: Connection, programId: string, mint: string): Promise<ApiResult<PoolHistory>> {
  try {
    return { ok: true, status: 200, value: await readPoolHistory(connection, programId, poolTreeAddress(programId, mint)) };
  } catch (e) {
    return rpcFailure(connection, "reading the pool's history", e);
  }
}

/**
 * The note's path rebuilt from the chain (deposit and change leaves): the tree is rebuilt at the relay's
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
  const leafIndex = noteLeafIndex(note);
  if (leafIndex === null) return err({ kind: "no-leaf", message: noLeafReason(note) });
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
    let leaves: Map<number, PoolLeaf>;
    try {
      account = await readTreeAccount(connection, programId, treeAddress);
      if (!account.ok) return err({ kind: "mismatch", message: account.error });
      leaves = (await readPoolHistory(connection, programId, treeAddress)).leaves;
    } catch (e) {
      return err({ kind: "api", failure: rpcFailure(connection, "reading the pool's history", e) });
    }
    if (account.value.nextIndex < nextIndex) {
      lastProblem = `the chain's tree has ${account.value.nextIndex} leaves, fewer than the relay's ${nextIndex}: the RPC lags behind`;
      continue;
    }
    const missing = Array.from({ length: nextIndex }, (_, i) => i).find((i) => !leaves.has(i));
    if (missing !== undefined) {
      lastProblem = `the RPC's history lacks the transaction of leaf ${missing} (an RPC without full transaction history cannot rebuild the tree)`;
      continue;
    }
    const ordered = Array.from({ length: nextIndex }, (_, i) => leaves.get(i)!.commitment);
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
        message: `the chain's first ${nextIndex} leaves rebuild root 0x${toHex(built.root)} but the relay's root is 0x${toHex(relayRoot)}: the relay does not serve program ${programId}'s pool at this RPC`,
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
