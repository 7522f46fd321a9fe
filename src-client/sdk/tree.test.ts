import { buildPoseidon, type Poseidon } from "circomlibjs";
import { beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { bigIntToBytes32, bytesToBigInt } from "../../src-shared/encoding/field";
import { RelayClient } from "./http";
import { createNote, withDeposit, type DepositNote } from "./note";
import { getNoteProof, leafIndexBits, pathFromLeaves, rootFromPath } from "./tree";

const WSOL = "So11111111111111111111111111111111111111112";
const DEPTH = 32;

let hasher: FieldHasher;
let poseidon: Poseidon;
const H = (xs: bigint[]): bigint => poseidon.F.toObject(poseidon(xs));

beforeAll(async () => {
  hasher = await createPoseidonHasher();
  poseidon = await buildPoseidon();
});

/** Root and path of leaves[index] in a depth-32 tree with empty leaves 0, computed with circomlibjs. */
function reference(leaves: bigint[], index: number): { root: bigint; path: bigint[] } {
  const zeros = [0n];
  for (let i = 0; i < DEPTH; i++) zeros.push(H([zeros[i]!, zeros[i]!]));
  const path: bigint[] = [];
  let level = leaves.slice();
  let idx = index;
  for (let i = 0; i < DEPTH; i++) {
    const sib = idx ^ 1;
    path.push(sib < level.length ? level[sib]! : zeros[i]!);
    const next: bigint[] = [];
    for (let j = 0; j < level.length; j += 2) next.push(H([level[j]!, j + 1 < level.length ? level[j + 1]! : zeros[i]!]));
    level = next;
    idx >>= 1;
  }
  return { root: level[0]!, path };
}

const wire = (x: bigint): number[] => Array.from(bigIntToBytes32(x));

/** A fake relay whose tree holds `leaves`; `tamper` corrupts what get_proof answers. */
function fakeRelay(leaves: bigint[], tamper: (path: number[][], indices: number[]) => void = () => {}): RelayClient {
  const fetchImpl = (async (input: string | URL | Request) => {
    const url = String(input);
    const proofMatch = /\/get_proof\/[^/]+\/32\/([0-9]+)\//.exec(url);
    let body: unknown;
    if (url.includes("/get_merkle/")) {
      body = { address: "Tree", json: { root: wire(reference(leaves, 0).root), nextIndex: leaves.length, depth: 32 } };
    } else if (proofMatch) {
      const index = Number(proofMatch[1]);
      const path = reference(leaves, index).path.map(wire);
      const indices = leafIndexBits(index);
      tamper(path, indices);
      body = { address: "Tree", json: { path, indices } };
    } else {
      return new Response(JSON.stringify({ error: "NotFound" }), { status: 404 });
    }
    return new Response(JSON.stringify(body), { status: 200 });
  }) as typeof fetch;
  return new RelayClient({ baseUrl: "http://relay.test", fetch: fetchImpl });
}

async function depositedNote(leafIndex: number | null): Promise<DepositNote> {
  const r = await createNote({ network: "mainnet", mint: WSOL, amount: 10n, hasher });
  if (!r.ok) throw new Error(r.error);
  return withDeposit(r.value, { signature: "sig", status: leafIndex === null ? "failed" : "indexed", leafIndex, wallet: "w" });
}

describe("rootFromPath", () => {
  it("rebuilds circomlibjs's root for every position of a small tree", () => {
    const leaves = [11n, 22n, 33n, 44n, 55n];
    for (let i = 0; i < leaves.length; i++) {
      const { root, path } = reference(leaves, i);
      const got = rootFromPath(hasher, bigIntToBytes32(leaves[i]!), path.map(bigIntToBytes32), leafIndexBits(i));
      expect(bytesToBigInt(got)).toBe(root);
    }
  });

  it("leafIndexBits is little-end first and covers 32 levels", () => {
    expect(leafIndexBits(6).slice(0, 4)).toEqual([0, 1, 1, 0]);
    expect(leafIndexBits(2 ** 32 - 1)).toEqual(new Array(32).fill(1));
  });
});

describe("getNoteProof", () => {
  it("accepts a proof that rebuilds the relay's root", async () => {
    const note = await depositedNote(1);
    const leaves = [5n, bytesToBigInt(note.commitment), 7n];
    const r = await getNoteProof(fakeRelay(leaves), note, { hasher });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(bytesToBigInt(r.value.root)).toBe(reference(leaves, 0).root);
    expect(r.value).toMatchObject({ leafIndex: 1, nextIndex: 3 });
  });

  it("fails loudly when the path does not rebuild the root", async () => {
    const note = await depositedNote(0);
    const leaves = [bytesToBigInt(note.commitment), 9n];
    const bad = await getNoteProof(
      fakeRelay(leaves, (path) => void (path[5] = wire(123n))),
      note,
      { hasher },
    );
    expect(bad).toMatchObject({ ok: false, error: { kind: "mismatch", message: expect.stringMatching(/rebuilds root/) } });
  });

  it("fails when the leaf is not the note's commitment", async () => {
    const note = await depositedNote(0);
    expect(await getNoteProof(fakeRelay([42n]), note, { hasher })).toMatchObject({ ok: false, error: { kind: "mismatch" } });
  });

  it("fails when the indices describe another leaf", async () => {
    const note = await depositedNote(0);
    const leaves = [bytesToBigInt(note.commitment)];
    const r = await getNoteProof(
      fakeRelay(leaves, (_p, indices) => void (indices[0] = 1)),
      note,
      { hasher },
    );
    expect(r).toMatchObject({ ok: false, error: { kind: "mismatch", message: expect.stringMatching(/indices/) } });
  });

  it("needs a leaf: a failed or unsent deposit has none", async () => {
    expect(await getNoteProof(fakeRelay([1n]), await depositedNote(null), { hasher })).toMatchObject({ ok: false, error: { kind: "no-leaf" } });
  });
});

describe("pathFromLeaves", () => {
  it("gives circomlibjs's root and path for every leaf of 1, 2, 5 and 9 leaves, with the leaf's direction bits", () => {
    for (const n of [1, 2, 5, 9]) {
      const leaves = Array.from({ length: n }, (_, i) => BigInt(1000 + 7 * i));
      for (let i = 0; i < n; i++) {
        const ref = reference(leaves, i);
        const got = pathFromLeaves(
          hasher,
          leaves.map((x) => bigIntToBytes32(x)),
          i,
        );
        expect(bytesToBigInt(got.root)).toBe(ref.root);
        expect(got.path.map(bytesToBigInt)).toEqual(ref.path);
        expect(got.indices).toEqual(leafIndexBits(i));
      }
    }
    expect(() => pathFromLeaves(hasher, [bigIntToBytes32(1n)], 1)).toThrow(RangeError);
  });
});
