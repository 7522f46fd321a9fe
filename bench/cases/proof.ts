import { rmSync } from "node:fs";
import { MerkleTree as FixedMerkleTree } from "fixed-merkle-tree";
import { createFastPoseidonHasher } from "../../src-server/adapters/poseidon-fast/fast-hasher";
import { DurableDb } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../../src-server/adapters/storage-sqljs/tree-store";
import { ProofJson } from "../../src-server/core/merkle/proof-json";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { byteArrayJson } from "../../src-server/http/respond";
import { BENCH_MINT, copyPool, preparedPool, toDecimal } from "../lib/data";
import type { Metric } from "../lib/metric";
import { fmtPoseidonHash } from "../lib/peer";
import { fmtNum, gc, median, rate, timeSyncMs } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";

/** Any fixed text stands in for the tree account address; both sides send the same one. */
const ADDRESS = BENCH_MINT;

/**
 * The get_proof route's answer as src-server/http/routes/indexer.ts builds it (core/merkle/proof-json.ts),
 * with no whole answers kept: every call builds one (the node text of full subtrees is kept, as in the route).
 */
function routeJsonOf(tree: MerkleTree, address = ADDRESS): (index: number) => string {
  const answers = new ProofJson(tree, address, { maxAnswers: 0 });
  return (index) => {
    const a = answers.answer(index);
    if (!a) throw new Error(`no leaf ${index}`);
    return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("latin1");
  };
}

/** The answer built straight from tree.proof(i), as the route did before core/merkle/proof-json.ts. */
function plainJson(tree: MerkleTree, index: number, address = ADDRESS): string {
  const proof = tree.proof(index);
  if (!proof.ok) throw new Error(proof.error);
  const path = proof.value.path.map(byteArrayJson).join(",");
  return `{"address":"${address}","json":{"path":[${path}],"indices":[${proof.value.indices.join(",")}]}}`;
}

function decimalToBytes(s: string | number): number[] {
  let x = BigInt(s);
  const out = new Array<number>(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

const proof: BenchCase = {
  name: "proof",
  title: "get_proof in-process",
  async run({ quick, log }) {
    const n = quick ? 10_000 : 100_000;
    const M = quick ? 2_000 : 20_000;
    const reps = 5;
    const prepared = await preparedPool(n, log);

    // Load the pool the way the relay does at start: DurableDb.open + SqlTreeStore.loadTree.
    const dir = copyPool(prepared.dir, "proof");
    const hasher = await createFastPoseidonHasher();
    const tree = new MerkleTree(hasher);
    let loadMs: number;
    try {
      const t0 = performance.now();
      const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
      const store = new SqlTreeStore(db);
      const pool = (await store.listPools()).find((p) => p.mint === BENCH_MINT);
      if (!pool) throw new Error("prepared pool missing");
      await store.loadTree(pool, tree);
      loadMs = performance.now() - t0;
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    if (tree.nextIndex !== n) throw new Error(`loaded ${tree.nextIndex} leaves, expected ${n}`);

    // Peer: the same tree in fixed-merkle-tree (deserialized from our nodes, no hashing), path() + JSON.stringify.
    log("building the fixed-merkle-tree peer from the same nodes");
    const layers: string[][] = [];
    for (let level = 0, size = n; level <= tree.depth; level++, size = Math.ceil(size / 2)) {
      const row = new Array<string>(size);
      for (let i = 0; i < size; i++) row[i] = toDecimal(tree.nodeAt(level, i));
      layers.push(row);
    }
    const fmt = FixedMerkleTree.deserialize({ levels: tree.depth, _zeros: tree.zeros.map((z) => toDecimal(z)), _layers: layers }, await fmtPoseidonHash());
    const peerJson = (index: number): string => {
      const p = fmt.path(index);
      return JSON.stringify({ address: ADDRESS, json: { path: p.pathElements.map(decimalToBytes), indices: p.pathIndices } });
    };

    // Pseudo-random indices across the whole pool.
    const indices = Array.from({ length: M }, (_, i) => (i * 2654435761) % n);
    const routeJson = routeJsonOf(tree);
    for (const i of [0, n - 1, indices[7]!, indices[8]!]) {
      if (routeJson(i) !== peerJson(i) || plainJson(tree, i) !== peerJson(i)) throw new Error(`answers differ at leaf ${i}`);
    }
    let sink = 0;
    const runOurs = (): number =>
      timeSyncMs(() => {
        for (const i of indices) sink += routeJson(i).length;
      });
    const runPeer = (): number =>
      timeSyncMs(() => {
        for (const i of indices) sink += peerJson(i).length;
      });
    runOurs();
    runPeer();
    gc();
    const ours: number[] = [];
    const peer: number[] = [];
    for (let r = 0; r < reps; r++) {
      ours.push(rate(M, runOurs()));
      peer.push(rate(M, runPeer()));
    }
    const treeOnly = rate(M, median(Array.from({ length: 3 }, () => timeSyncMs(() => indices.forEach((i) => (sink += tree.proof(i).ok ? 1 : 0))))));
    const plain = rate(M, median(Array.from({ length: 3 }, () => timeSyncMs(() => indices.forEach((i) => (sink += plainJson(tree, i).length))))));

    const metrics: Metric[] = [
      {
        name: `get_proof in-process on ${fmtNum(n)} leaves (proof + route JSON)`,
        ours: median(ours),
        unit: "proofs/s",
        peerLabel: "fixed-merkle-tree path() + JSON.stringify",
        peer: median(peer),
        better: "higher",
        target: null,
        detail: `median of ${reps} x ${fmtNum(M)} random leaves, ${fmtNum(routeJson(0).length)} bytes each, no whole answer reused`,
      },
    ];
    return {
      metrics,
      notes: [
        `no target was set for this case; answers checked byte-identical between ours and the peer`,
        `tree.proof(i) alone: ${fmtNum(treeOnly)} proofs/s; the answer written from tree.proof(i) with no node text kept (the route before core/merkle/proof-json.ts): ${fmtNum(plain)} proofs/s`,
        `the route also keeps whole answers for up to 1,024 leaves until the tree grows; those are not counted here`,
        `pool loaded like the relay does (DurableDb.open + SqlTreeStore.loadTree) in ${fmtNum(loadMs)} ms; prepared pool ${prepared.cached ? "reused from out/bench cache" : `built in ${fmtNum(prepared.buildMs / 1000, 1)} s`}`,
        ...(sink < 0 ? ["unreachable"] : []),
      ],
    };
  },
};

export default proof;
