import { rmSync } from "node:fs";
import { MerkleTree as FixedMerkleTree } from "fixed-merkle-tree";
import { buildPersistedPool, dirBytes, INDEXER_PAGE, makeLeaves, tempDir, toDecimal, type PersistTimings } from "../lib/data";
import type { Metric } from "../lib/metric";
import { fmtPoseidonHash } from "../lib/peer";
import { fmtNum, gc, rate, timeSyncMs } from "../lib/stats";
import type { BenchCase } from "./index";

const batchAppend: BenchCase = {
  name: "batch-append",
  title: "Batch append into a persisted pool",
  async run({ quick, log }) {
    const n = quick ? 10_000 : 100_000;
    const leaves = makeLeaves(n, 11);
    const decimals = Array.from({ length: n }, (_, i) => toDecimal(leaves, 32 * i));
    const hashFunction = await fmtPoseidonHash();

    const persist = async (batch: number, src: Uint8Array): Promise<PersistTimings & { bytes: number }> => {
      const dir = tempDir("append");
      try {
        const t = await buildPersistedPool(dir, src, { batch, withMeta: true, fsync: true });
        return { ...t, bytes: dirBytes(dir) };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const peer = (els: string[]): { ms: number; root: string } => {
      let tree: FixedMerkleTree | null = null;
      const ms = timeSyncMs(() => {
        tree = new FixedMerkleTree(32, els, { hashFunction, zeroElement: 0 });
      });
      return { ms, root: BigInt(tree!.root).toString(16).padStart(64, "0") };
    };

    log("warm-up (2,000 leaves each way)");
    await persist(INDEXER_PAGE, leaves.subarray(0, 2000 * 32));
    peer(decimals.slice(0, 2000));
    gc();

    log(`ours: ${fmtNum(n)} leaves in indexer pages of ${INDEXER_PAGE}, fsync on`);
    const paged = await persist(INDEXER_PAGE, leaves);
    gc();
    log(`peer: fixed-merkle-tree bulk build of ${fmtNum(n)} leaves`);
    const fmt = peer(decimals);
    gc();
    log(`ours: ${fmtNum(n)} leaves in one batch, fsync on`);
    const single = await persist(n, leaves);

    if (paged.root !== fmt.root || single.root !== fmt.root) throw new Error(`roots differ: ours ${paged.root} / ${single.root}, fixed-merkle-tree ${fmt.root}`);

    const peerRate = rate(n, fmt.ms);
    const metrics: Metric[] = [
      {
        name: `batch append ${fmtNum(n)} leaves, persisted (pages of ${INDEXER_PAGE})`,
        ours: rate(n, paged.totalMs),
        unit: "leaves/s",
        peerLabel: "fixed-merkle-tree bulk build",
        peer: peerRate,
        better: "higher",
        target: { kind: "ratio>=", value: 0.9 },
        detail: `ours ${fmtNum(paged.totalMs / 1000, 2)} s vs ${fmtNum(fmt.ms / 1000, 2)} s`,
      },
      {
        name: `batch append ${fmtNum(n)} leaves, persisted (one batch)`,
        ours: rate(n, single.totalMs),
        unit: "leaves/s",
        peerLabel: "fixed-merkle-tree bulk build",
        peer: peerRate,
        better: "higher",
        target: { kind: "ratio>=", value: 0.9 },
        detail: `ours ${fmtNum(single.totalMs / 1000, 2)} s vs ${fmtNum(fmt.ms / 1000, 2)} s`,
      },
    ];
    const breakdown = (t: PersistTimings & { bytes: number }): string =>
      `hashing (MerkleTree.append) ${fmtNum(t.appendMs)} ms, store (saveAppend incl. journal fsync) ${fmtNum(t.saveMs)} ms, close/snapshot ${fmtNum(t.closeMs)} ms; ${t.writes} write batches, ${t.fsyncs} fsyncs, ${fmtNum(t.bytes / 2 ** 20, 1)} MiB on disk`;
    return {
      metrics,
      notes: [
        `ours = MerkleTree.append + SqlTreeStore.saveAppend (with per-leaf signature/slot rows, as the indexer writes) into a fresh DurableDb, fsync on, timed through close() (final snapshot); open (${fmtNum(paged.openMs)} ms, sql.js + migrations) not timed`,
        `peer = new MerkleTree(32, leaves, { hashFunction: circomlibjs Poseidon, zeroElement: 0 }), in memory; roots checked equal (${fmt.root.slice(0, 16)}...)`,
        `pages of ${INDEXER_PAGE}: ${breakdown(paged)}`,
        `one batch: ${breakdown(single)}`,
      ],
    };
  },
};

export default batchAppend;
