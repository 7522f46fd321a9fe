import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { bytesEqual, toHex } from "../../src-shared/encoding/bytes";
import type { Network } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";
import type { ApiFailure, ApiResult } from "./api-result";
import type { RelayClient } from "./http";
import { TREE_DEPTH } from "./requests";
import { noteLeafIndex, type DepositNote } from "./note";
import type { MerkleProof, MerkleState, NullifierStatus } from "../../src-shared/api/public";

/** The pool's current tree (spec: get_merkle). */
export function getMerkle(client: RelayClient, mint: string, network: Network): Promise<ApiResult<MerkleState>> {
  return client.getMerkle(mint, network);
}

/**
 * Rebuilds the root from a leaf and its authentication path (depth 32;
 * index bit 0 = the node is a left child, parent = Poseidon(left, right)),
 * exactly as the withdraw circuit does.
 */
export function rootFromPath(hasher: FieldHasher, leaf: Uint8Array, path: readonly Uint8Array[], indices: readonly number[]): Uint8Array {
  if (path.length !== indices.length) throw new RangeError("path and indices differ in length");
  let node = leaf;
  for (let i = 0; i < path.length; i++) {
    const sibling = path[i]!;
    node = indices[i] === 0 ? hasher.hash([node, sibling]) : hasher.hash([sibling, node]);
  }
  return node;
}

/** The direction bits of a leaf position, lowest level first: what a correct proof's indices must be. */
export function leafIndexBits(leafIndex: number, depth: number = TREE_DEPTH): number[] {
  const bits: number[] = [];
  let x = BigInt(leafIndex);
  for (let i = 0; i < depth; i++, x >>= 1n) bits.push(Number(x & 1n));
  return bits;
}

/** A proof this SDK has checked rebuilds a root the relay served: ready for the withdraw circuit. */
export interface VerifiedNoteProof {
  address: string;
  leafIndex: number;
  leaf: Uint8Array;
  root: Uint8Array;
  path: Uint8Array[];
  indices: number[];
  /** nextIndex of the tree whose root matched. */
  nextIndex: number;
}

export type NoteProofError =
  | { kind: "api"; failure: ApiFailure }
  /** The note has no leaf: not deposited yet, or the deposit failed (revert it instead). */
  | { kind: "no-leaf"; message: string }
  /**
   * The relay's proof does not rebuild the relay's own root, or does not
   * describe the note's leaf. A proof built on it would never verify: stop.
   */
  | { kind: "mismatch"; message: string }
  /** Deposits kept landing between the reads, so no consistent root could be seen. */
  | { kind: "unstable"; message: string }
  /**
   * The relay's answers about one tree disagree with each other (a decoy's
   * path that does not rebuild the root every other answer rebuilds). Asking
   * again would show it another set of lookups to intersect: stop instead.
   */
  | { kind: "inconsistent"; message: string };

export interface NoteProofOptions {
  hasher?: FieldHasher;
  /** Reads of (merkle, proof, merkle) to try while the tree keeps growing. Default 3. */
  attempts?: number;
  /**
   * How the leaf's get_proof is asked, given the tree's leaf count just read
   * (e.g. among decoy leaves: src-client/sdk/lookup.ts). Default: get_proof of
   * the leaf alone.
   */
  fetchProof?: (leafIndex: number, leafCount: number) => Promise<ApiResult<MerkleProof>>;
}

/**
 * Fetches get_proof for the note's leaf and checks it locally with Poseidon
 * before anyone spends time proving with it. get_proof carries no root, so
 * the tree is read before and after: the rebuilt root must equal one of
 * them. When both reads agree and the root differs, the relay is serving a
 * wrong proof and this fails with `mismatch`.
 */
export async function getNoteProof(client: RelayClient, note: DepositNote, options: NoteProofOptions = {}): Promise<Result<VerifiedNoteProof, NoteProofError>> {
  const leafIndex = noteLeafIndex(note);
  if (leafIndex === null) return err({ kind: "no-leaf", message: noLeafReason(note) });
  const hasher = options.hasher ?? (await createPoseidonHasher());
  const attempts = options.attempts ?? 3;

  for (let attempt = 0; attempt < attempts; attempt++) {
    const before = await client.getMerkle(note.mint, note.network);
    if (!before.ok) return err({ kind: "api", failure: before });
    const proof = options.fetchProof
      ? await options.fetchProof(leafIndex, before.value.json.nextIndex)
      : await client.getProof(note.mint, leafIndex, note.network);
    if (!proof.ok) return err({ kind: "api", failure: proof });
    const after = await client.getMerkle(note.mint, note.network);
    if (!after.ok) return err({ kind: "api", failure: after });

    const { path, indices } = proof.value.json;
    if (path.length !== TREE_DEPTH)
      return err({ kind: "mismatch", message: `get_proof answered ${path.length} siblings; a depth-${TREE_DEPTH} tree needs ${TREE_DEPTH}` });
    const expectedBits = leafIndexBits(leafIndex);
    if (indices.some((b, i) => b !== expectedBits[i])) {
      return err({ kind: "mismatch", message: `get_proof's indices [${indices.join("")}] do not describe leaf ${leafIndex}` });
    }
    if (leafIndex >= after.value.json.nextIndex) {
      return err({ kind: "mismatch", message: `leaf ${leafIndex} is at or past the tree's nextIndex ${after.value.json.nextIndex}` });
    }

    const computed = rootFromPath(hasher, note.commitment, path, indices);
    const matched = [before.value, after.value].find((m) => bytesEqual(m.json.root, computed));
    if (matched) {
      return ok({ address: proof.value.address, leafIndex, leaf: note.commitment, root: computed, path, indices, nextIndex: matched.json.nextIndex });
    }
    if (bytesEqual(before.value.json.root, after.value.json.root)) {
      return err({
        kind: "mismatch",
        message:
          `the proof for leaf ${leafIndex} rebuilds root 0x${toHex(computed)} but the relay's root is 0x${toHex(after.value.json.root)}: ` +
          "either the leaf is not this note's commitment or the relay serves a wrong proof",
      });
    }
  }
  return err({ kind: "unstable", message: `the tree changed during each of ${attempts} attempts; try again` });
}

/** Why a note has no leaf to prove against. */
export function noLeafReason(note: DepositNote): string {
  if (note.change) return `the change leaf of piece ${note.change.piece} has no known index yet: \`relay-cli note --note <file>\` finds it`;
  return note.deposit ? `the deposit ${note.deposit.signature} failed and has no leaf; revert it` : "the note was never deposited";
}

/** Whether the note was already withdrawn (spec: get_nullifier, called before withdrawing). */
export function getNoteNullifier(client: RelayClient, note: DepositNote): Promise<ApiResult<NullifierStatus>> {
  return client.getNullifier(note.mint, note.nullifierHash, note.network);
}

/**
 * The authentication path of `leafIndex` in the depth-`depth` tree whose
 * first leaves are `leaves` and the rest empty (Z[0] = 0, Z[i+1] = H(Z[i],
 * Z[i]), as the pool program and the relay build it), and the root. Costs
 * about `leaves.length` hashes: for a wallet that rebuilds the tree from the
 * chain's deposit events instead of asking a relay for the path.
 */
export function pathFromLeaves(
  hasher: FieldHasher,
  leaves: readonly Uint8Array[],
  leafIndex: number,
  depth: number = TREE_DEPTH,
): { root: Uint8Array; path: Uint8Array[]; indices: number[] } {
  if (!Number.isInteger(leafIndex) || leafIndex < 0 || leafIndex >= leaves.length)
    throw new RangeError(`leaf ${leafIndex} is not among the ${leaves.length} leaves`);
  let zero: Uint8Array = new Uint8Array(32);
  let level: readonly Uint8Array[] = leaves;
  let at = leafIndex;
  const path: Uint8Array[] = [];
  for (let i = 0; i < depth; i++) {
    path.push(level[at ^ 1] ?? zero);
    const next: Uint8Array[] = [];
    for (let j = 0; j < level.length; j += 2) next.push(hasher.hash([level[j]!, level[j + 1] ?? zero]));
    level = next;
    zero = hasher.hash([zero, zero]);
    at >>= 1;
  }
  return { root: level[0]!, path, indices: leafIndexBits(leafIndex, depth) };
}
