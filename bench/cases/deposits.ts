import { rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { MerkleTree as FixedMerkleTree } from "fixed-merkle-tree";
import nacl from "tweetnacl";
import { createFastPoseidonHasher } from "../../src-server/adapters/poseidon-fast/fast-hasher";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { DurableDb } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../../src-server/adapters/storage-sqljs/tree-store";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { BENCH_MINT, BENCH_NETWORK, FENCE, leafMeta, makeLeaves, tempDir, toDecimal } from "../lib/data";
import type { CaseResult, Metric } from "../lib/metric";
import { jsonClient, type JsonClient } from "../lib/http-client";
import { fmtPoseidonHash } from "../lib/peer";
import { procCpuMs, procMainThreadCpuMs, startRelayChild } from "../lib/proc";
import { fmtNum, gc, percentile, rate } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";
import { signedSandboxDeposit, WSOL } from "../lib/sandbox-deposit";
import type { FieldHasher } from "../../src-shared/crypto/hasher";

/** The case's sizes: quick for the smoke test, full for the report. */
function sizesFor(quick: boolean) {
  return {
    N: quick ? 100 : 1500,
    WARM: quick ? 20 : 100,
    H: quick ? 30 : 300,
    HWARM: quick ? 5 : 20,
    CONC: 16,
    HC: quick ? 64 : 2000,
    WALLETS: quick ? 4 : 100,
  };
}
type Sizes = ReturnType<typeof sizesFor>;

/** Ours, persisted: one leaf per append and per durable write, as the indexer does for a lone deposit. */
async function measurePersisted(
  hasher: FieldHasher,
  leaves: Uint8Array,
  { N, WARM }: Sizes,
  log: (msg: string) => void,
): Promise<{ persistedMs: number; fsyncs: number }> {
  const dir = tempDir("deposits");
  try {
    const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, fsync: true, snapshotIntervalMs: 0 });
    const store = new SqlTreeStore(db);
    const pool = await store.createPool(BENCH_NETWORK, BENCH_MINT);
    const tree = new MerkleTree(hasher);
    const metas = Array.from({ length: WARM + N }, (_, i) => leafMeta(i, 1));
    const one = async (i: number): Promise<void> => {
      const r = tree.append(leaves.subarray(32 * i, 32 * i + 32));
      if (!r.ok) throw new Error(r.error);
      await store.saveAppend(pool, r.value, String(i + 1), metas[i]!, FENCE);
    };
    for (let i = 0; i < WARM; i++) await one(i);
    log(`ours: ${N} one-leaf appends, each persisted (fsync on)`);
    const f0 = db.stats.fsyncs;
    const t0 = performance.now();
    for (let i = WARM; i < WARM + N; i++) await one(i);
    const persistedMs = performance.now() - t0;
    const fsyncs = db.stats.fsyncs - f0;
    await db.close();
    return { persistedMs, fsyncs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Ours, memory only: what the tree alone costs per deposit. */
function measureMemory(hasher: FieldHasher, leaves: Uint8Array, { N, WARM }: Sizes): number {
  const memTree = new MerkleTree(hasher);
  for (let i = 0; i < WARM; i++) memTree.append(leaves.subarray(32 * i, 32 * i + 32));
  const t0 = performance.now();
  for (let i = WARM; i < WARM + N; i++) memTree.append(leaves.subarray(32 * i, 32 * i + 32));
  return performance.now() - t0;
}

/** Peer: fixed-merkle-tree insert() one by one, in memory. */
async function measurePeer(leaves: Uint8Array, { N, WARM }: Sizes, log: (msg: string) => void): Promise<number> {
  log(`peer: fixed-merkle-tree insert() x ${N}`);
  const fmt = new FixedMerkleTree(32, [], { hashFunction: await fmtPoseidonHash(), zeroElement: 0 });
  const decimals = Array.from({ length: WARM + N }, (_, i) => toDecimal(leaves, 32 * i));
  for (let i = 0; i < WARM; i++) fmt.insert(decimals[i]!);
  const t0 = performance.now();
  for (let i = WARM; i < WARM + N; i++) fmt.insert(decimals[i]!);
  return performance.now() - t0;
}

/**
 * Depositors are many wallets, as on a live relay (each wallet's key is parsed and verified per deposit).
 * Signing is the client's cost, not the relay's: everything is signed before the clock starts (and before
 * the airdrops: seconds of signing would leave their keep-alive sockets past the relay's idle time-out).
 */
function signedDepositBodies({ H, HWARM, HC, WALLETS }: Sizes) {
  const wallets = Array.from({ length: WALLETS }, () => nacl.sign.keyPair());
  const precommitments = makeLeaves(HWARM + H + HC, 33);
  const bodies = Array.from({ length: HWARM + H + HC }, (_, i) => signedSandboxDeposit(wallets[i % WALLETS]!, precommitments.subarray(32 * i, 32 * i + 32)));
  return { wallets, bodies };
}

interface HttpRun {
  httpMs: number;
  concMs: number;
  concLatencies: number[];
  concCpuMs: number | null;
  /** The relay's main thread alone (the event loop), same window. */
  concMainMs: number | null;
  clientCpuMs: number;
}

/** Ours over HTTP: sandbox chain -> deposit event -> indexer -> tree append -> persisted, signatures checked. */
async function measureHttp(sizes: Sizes, log: (msg: string) => void): Promise<HttpRun> {
  const { H, HWARM, CONC, HC } = sizes;
  log(`HTTP: ${H} sequential POST /sandbox/deposit, then ${HC} with ${CONC} in flight, on the relay as npm start runs it (the server bundle)`);
  const dataDir = tempDir("deposits-http");
  const server = await startRelayChild({ RELAY_DATA_DIR: dataDir });
  const client: JsonClient = jsonClient(server.url, CONC);
  const post = (path: string, body: unknown) => client.post(path, body);
  const concLatencies: number[] = [];
  let concCpuMs: number | null = null;
  let concMainMs: number | null = null;
  try {
    const { wallets, bodies } = signedDepositBodies(sizes);
    for (const kp of wallets) {
      const air = await post(`/sandbox/airdrop`, { network: "mainnet", wallet: encodeBase58(kp.publicKey), mint: WSOL, amount: 1_000_000_000 });
      if (air.status !== 200) throw new Error(`airdrop: ${air.status} ${JSON.stringify(air.json)}`);
    }
    const leaves = new Set<number>();
    const deposit = async (i: number): Promise<void> => {
      const r = await post(`/sandbox/deposit`, bodies[i]);
      if (r.status !== 200 || r.json.status !== "indexed") throw new Error(`deposit ${i}: ${r.status} ${JSON.stringify(r.json)}`);
      leaves.add(r.json.leafIndex as number);
    };
    for (let i = 0; i < HWARM; i++) await deposit(i);
    let t0 = performance.now();
    for (let i = HWARM; i < HWARM + H; i++) await deposit(i);
    const httpMs = performance.now() - t0;

    let next = HWARM + H;
    const client0 = process.cpuUsage();
    const cpu0 = procCpuMs(server.pid);
    const main0 = procMainThreadCpuMs(server.pid);
    t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONC }, async () => {
        while (next < HWARM + H + HC) {
          const s = performance.now();
          await deposit(next++);
          concLatencies.push(performance.now() - s);
        }
      }),
    );
    const concMs = performance.now() - t0;
    const cpu1 = procCpuMs(server.pid);
    const main1 = procMainThreadCpuMs(server.pid);
    const clientCpu = process.cpuUsage(client0);
    const clientCpuMs = (clientCpu.user + clientCpu.system) / 1000;
    if (cpu0 !== null && cpu1 !== null) concCpuMs = cpu1 - cpu0;
    if (main0 !== null && main1 !== null) concMainMs = main1 - main0;
    // Every acknowledged deposit has its own leaf, and the relay's tree holds exactly them.
    const merkle = await post(`/get_merkle/${WSOL}/32/mainnet`, {});
    const nextIndex = (merkle.json.json as { nextIndex: number }).nextIndex;
    if (leaves.size !== HWARM + H + HC || nextIndex !== HWARM + H + HC)
      throw new Error(`${leaves.size} distinct leaves acknowledged, tree holds ${nextIndex}, sent ${HWARM + H + HC}`);
    return { httpMs, concMs, concLatencies: concLatencies.sort((a, b) => a - b), concCpuMs, concMainMs, clientCpuMs };
  } finally {
    client.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The report: three rates against the same in-memory peer, and where the time goes. */
function report({ N, H, CONC, HC, WALLETS }: Sizes, m: { persistedMs: number; fsyncs: number; memoryMs: number; peerMs: number } & HttpRun): CaseResult {
  const { persistedMs, fsyncs, memoryMs, httpMs, concMs, concLatencies, concCpuMs, concMainMs, clientCpuMs } = m;
  const peerRate = rate(N, m.peerMs);
  const metrics: Metric[] = [
    {
      name: "deposits one-by-one, persisted (append 1 + saveAppend, fsync)",
      ours: rate(N, persistedMs),
      unit: "deposits/s",
      peerLabel: "fixed-merkle-tree insert() in memory",
      peer: peerRate,
      better: "higher",
      target: null,
      detail: `${N} sequential, ${fsyncs} fsyncs`,
    },
    {
      name: "deposits one-by-one via HTTP /sandbox/deposit",
      ours: rate(H, httpMs),
      unit: "deposits/s",
      peerLabel: "fixed-merkle-tree insert() in memory",
      peer: peerRate,
      better: "higher",
      target: null,
      detail: `${H} sequential requests, mean ${fmtNum(httpMs / H, 2)} ms each`,
    },
    {
      name: `sandbox deposits via HTTP, signatures checked, ${CONC} in flight`,
      ours: rate(HC, concMs),
      unit: "deposits/s",
      peerLabel: "fixed-merkle-tree insert() in memory",
      peer: peerRate,
      better: "higher",
      target: { kind: "ratio>=", value: 1.5 },
      detail: `${HC} requests from ${WALLETS} wallets, each answered once fsynced and indexed; latency p50 ${fmtNum(percentile(concLatencies, 50), 1)} ms, p99 ${fmtNum(percentile(concLatencies, 99), 1)} ms`,
    },
  ];
  return {
    metrics,
    notes: [
      `the peer keeps nothing on disk; ours makes every deposit durable (one journal fsync each) and answers only once it is indexed`,
      `ours in memory only (MerkleTree.append of 1 leaf, no store): ${fmtNum(rate(N, memoryMs))} deposits/s, so persistence costs ${fmtNum((persistedMs - memoryMs) / N, 2)} ms per deposit`,
      `HTTP path per deposit: ed25519 check (node:crypto), commitment (1 Poseidon), sandbox ledger write (frontier insert, 32 Poseidon), indexer append of the same leaf (its 32 pairs read from the frontier's pair memo, not hashed again), both writes in the journal and fsynced before answering`,
      `with ${CONC} in flight, the journal's group commit makes several deposits durable per fsync, and the indexer appends the deposits that arrived meanwhile in one batch`,
      concCpuMs === null
        ? "relay CPU per deposit: n/a"
        : `relay CPU per deposit with ${CONC} in flight: ${fmtNum(concCpuMs / HC, 2)} ms (/proc, user + system, all threads; its main thread ${concMainMs === null ? "n/a" : fmtNum(concMainMs / HC, 2)} ms); the 32 Poseidon hashes of the frontier insert are about ${fmtNum(memoryMs / N, 2)} ms of it (in-memory line above), on the lane's thread`,
      `the client (node:http with a keep-alive agent, ${CONC} in flight, in the bench process on the same ${availableParallelism()} cores) used ${fmtNum(clientCpuMs / HC, 2)} ms of CPU per deposit; fetch used about 1.0 ms (bench/lib/http-client.ts)`,
    ],
  };
}

const deposits: BenchCase = {
  name: "deposits",
  title: "One-by-one deposit indexing",
  async run({ quick, log }) {
    const sizes = sizesFor(quick);
    const hasher = await createFastPoseidonHasher();
    const leaves = makeLeaves(sizes.WARM + sizes.N, 21);
    const { persistedMs, fsyncs } = await measurePersisted(hasher, leaves, sizes, log);
    gc();
    const memoryMs = measureMemory(hasher, leaves, sizes);
    const peerMs = await measurePeer(leaves, sizes, log);
    gc();
    const http = await measureHttp(sizes, log);
    return report(sizes, { persistedMs, fsyncs, memoryMs, peerMs, ...http });
  },
};

export default deposits;
