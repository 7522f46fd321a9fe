import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import autocannon, { type Result } from "autocannon";
import nacl from "tweetnacl";
import { createFastPoseidonHasher } from "../../src-server/adapters/poseidon-fast/fast-hasher";
import { toHex } from "../../src-shared/encoding/bytes";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { DurableDb } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../../src-server/adapters/storage-sqljs/tree-store";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { BENCH_MINT, BENCH_NETWORK, copyPool, FENCE, leafMeta, makeLeaves, preparedPool, ROOT, tempDir } from "../lib/data";
import type { Metric } from "../lib/metric";
import { startRelayChild, type ListeningProcess } from "../lib/proc";
import { fmtNum } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";
import { signedSandboxDeposit, WSOL } from "../lib/sandbox-deposit";
/** Few connections: latency then shows stalls of the server, not queueing behind 50 clients. */
const CONNECTIONS = 4;

async function post(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

interface Phase {
  load: Result;
  snapshots: { bytes: number; exportMs: number; totalMs: number }[];
  deposits: number;
}

/**
 * One relay on a copy of the pool: get_proof under load for `seconds` while a
 * sandbox deposit lands every `depositEveryMs` (each deposit is a durable write,
 * so with a 1 s snapshot interval the store is snapshotted about once a second).
 */
async function phase(src: string, snapshotIntervalSec: number, seconds: number, depositEveryMs: number, n: number): Promise<Phase> {
  const dir = copyPool(src, "snapshot");
  const cfgDir = tempDir("snapshot-cfg");
  const cfg = path.join(cfgDir, "relay.json");
  writeFileSync(cfg, JSON.stringify({ storage: { snapshotIntervalSec } }));
  let relay: ListeningProcess | null = null;
  try {
    relay = await startRelayChild({ RELAY_DATA_DIR: dir, RELAY_CONFIG: cfg });
    const url = relay.url;
    const merkle = (await (await fetch(`${url}/get_merkle/${BENCH_MINT}/32/${BENCH_NETWORK}`, { method: "POST" })).json()) as { json: { nextIndex: number } };
    if (merkle.json.nextIndex !== n) throw new Error(`relay holds ${merkle.json.nextIndex} leaves, expected ${n}`);
    const kp = nacl.sign.keyPair();
    const wallet = encodeBase58(kp.publicKey);
    const air = await post(`${url}/sandbox/airdrop`, { network: "mainnet", wallet, mint: WSOL, amount: 1_000_000_000 });
    if (air.status !== 200) throw new Error(`airdrop: ${air.status} ${JSON.stringify(air.json)}`);
    const count = Math.ceil((seconds * 1000) / depositEveryMs) + 5;
    const commitments = makeLeaves(count, 77 + snapshotIntervalSec);
    const bodies = Array.from({ length: count }, (_, i) => signedSandboxDeposit(kp, commitments.subarray(32 * i, 32 * i + 32)));
    const paths = Array.from({ length: 100 }, (_, i) => ({
      method: "POST" as const,
      path: `/get_proof/${BENCH_MINT}/32/${(i * 2654435761) % n}/${BENCH_NETWORK}`,
    }));
    await autocannon({ url, connections: CONNECTIONS, duration: 2, requests: paths, timeout: 10 });
    const linesBefore = relay.lines.length;
    let deposits = 0;
    let stop = false;
    const depositing = (async () => {
      while (!stop && deposits < count) {
        const t = performance.now();
        const r = await post(`${url}/sandbox/deposit`, bodies[deposits]);
        if (r.status !== 200) throw new Error(`deposit: ${r.status} ${JSON.stringify(r.json)}`);
        deposits++;
        await new Promise((res) => setTimeout(res, Math.max(0, depositEveryMs - (performance.now() - t))));
      }
    })();
    const load = await autocannon({ url, connections: CONNECTIONS, duration: seconds, requests: paths, timeout: 10 });
    stop = true;
    await depositing;
    if (load.non2xx || load.errors || load.timeouts) throw new Error(`get_proof: ${load.non2xx} non-2xx, ${load.errors} errors, ${load.timeouts} timeouts`);
    const snapshots = relay.lines
      .slice(linesBefore)
      .map((l) => /storage: snapshot at record \d+ \(interval\): (\d+) bytes, export (\d+) ms, total (\d+) ms/.exec(l.text))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ bytes: Number(m[1]), exportMs: Number(m[2]), totalMs: Number(m[3]) }));
    return { load, snapshots, deposits };
  } finally {
    await relay?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(cfgDir, { recursive: true, force: true });
  }
}

/** In this process: the event loop's longest pause while the store snapshots after an append to the big pool. */
async function inProcessStall(src: string): Promise<{ maxMs: number; snapshotMs: number; appendMs: number }> {
  const dir = copyPool(src, "snapshot-inproc");
  try {
    const hasher = await createFastPoseidonHasher();
    const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
    const store = new SqlTreeStore(db);
    const pool = (await store.listPools())[0]!;
    const tree = new MerkleTree(hasher);
    await store.loadTree(pool, tree);
    const first = tree.nextIndex;
    const r = tree.append(makeLeaves(1000, 99));
    if (!r.ok) throw new Error(r.error);
    const t0 = performance.now();
    await store.saveAppend(pool, r.value, String(first + 1000), leafMeta(first, 1000, 9), FENCE);
    const appendMs = performance.now() - t0;
    const h = monitorEventLoopDelay({ resolution: 1 });
    // A timer keeps the loop turning so a pause shows up as one late tick.
    const tick = setInterval(() => {}, 1);
    h.enable();
    const t1 = performance.now();
    await db.compact();
    const snapshotMs = performance.now() - t1;
    h.disable();
    clearInterval(tick);
    await db.close();
    return { maxMs: h.max / 1e6, snapshotMs, appendMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface KillResult {
  acked: number;
  restartedAt: number;
  sameRoot: boolean;
  killedAt: string;
}

/** kill -9 of a writer appending to a copy of the pool, then a reopen: nothing acknowledged lost, the root is the one for the leaves kept. */
async function killOnce(src: string, when: { afterAcks: number; step?: string }): Promise<KillResult> {
  const dir = copyPool(src, "snapshot-kill");
  try {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/servers/kill-writer.ts", dir, "100"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const roots = new Map<number, string>();
    let acked = -1;
    let acks = 0;
    let killedAt = "";
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    let partial = "";
    child.stdout!.on("data", (d: Buffer) => {
      partial += d.toString();
      const lines = partial.split("\n");
      partial = lines.pop()!;
      for (const line of lines) {
        const [kind, a, b] = line.split(" ");
        if (kind === "ready") roots.set(Number(a), b!);
        if (kind === "root") roots.set(Number(a), b!);
        if (kind === "ack") {
          acked = Number(a);
          acks++;
        }
        if (!killedAt && acks >= when.afterAcks && (!when.step || (kind === "step" && a === when.step))) {
          killedAt = when.step ? `snapshot step ${when.step} after ${acks} appends` : `after ${acks} acknowledged appends`;
          child.kill("SIGKILL");
        }
      }
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    await exited;
    clearTimeout(timer);
    if (!killedAt) throw new Error(`kill-writer exited before the kill:\n${err.slice(-2000)}`);
    const hasher = await createFastPoseidonHasher();
    const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
    try {
      const store = new SqlTreeStore(db);
      const pool = (await store.listPools())[0]!;
      const tree = new MerkleTree(hasher);
      await store.loadTree(pool, tree);
      return { acked, restartedAt: tree.nextIndex, sameRoot: roots.get(tree.nextIndex) === toHex(tree.root()), killedAt };
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const snapshot: BenchCase = {
  name: "snapshot",
  title: "Snapshots of the 1M-leaf store under load, and kill -9",
  async run({ quick, log }) {
    const n = quick ? 10_000 : 1_000_000;
    const seconds = quick ? 3 : 10;
    const prepared = await preparedPool(n, log);

    log(
      `relay without timed snapshots, then with one every second; get_proof at ${CONNECTIONS} connections for ${seconds} s, a sandbox deposit every 250 ms in both`,
    );
    const peer = await phase(prepared.dir, 0, seconds, 250, n);
    const ours = await phase(prepared.dir, 1, seconds, 250, n);
    if (ours.snapshots.length === 0) throw new Error("no snapshot happened while measuring");

    log("in-process: event-loop pause while the store snapshots after a 1,000-leaf append to the pool");
    const stall = await inProcessStall(prepared.dir);

    const plans = quick
      ? [{ afterAcks: 3 }]
      : [{ afterAcks: 7 }, { afterAcks: 3, step: "fsync-pages" }, { afterAcks: 3, step: "rename" }, { afterAcks: 5, step: "truncate-journal" }];
    log(`kill -9 of a writer on a copy of the ${fmtNum(n)}-leaf pool, ${plans.length} times, each followed by a reopen`);
    const kills: KillResult[] = [];
    for (const p of plans) kills.push(await killOnce(prepared.dir, p));
    const kept = kills.filter((k) => k.restartedAt >= k.acked && k.sameRoot).length;

    const maxSnap = Math.max(...ours.snapshots.map((s) => s.totalMs));
    const metrics: Metric[] = [
      {
        name: `get_proof p99 while snapshots of the ${fmtNum(n)}-leaf store are written`,
        ours: ours.load.latency.p99,
        unit: "ms",
        peerLabel: "same relay, no snapshot",
        peer: peer.load.latency.p99,
        better: "lower",
        target: { kind: "<", value: 50 },
        detail: `${ours.snapshots.length} snapshots in ${seconds} s (image ${fmtNum(Math.max(...ours.snapshots.map((s) => s.bytes)) / 2 ** 20, 2)} MiB, export max ${fmtNum(Math.max(...ours.snapshots.map((s) => s.exportMs)))} ms, total max ${fmtNum(maxSnap)} ms); max latency ${fmtNum(ours.load.latency.max)} vs ${fmtNum(peer.load.latency.max)} ms; ${fmtNum(ours.load.requests.average)} vs ${fmtNum(peer.load.requests.average)} req/s`,
      },
      {
        name: `event-loop pause during a snapshot of the ${fmtNum(n)}-leaf store (in-process)`,
        ours: stall.maxMs,
        unit: "ms",
        peerLabel: "whole snapshot",
        peer: stall.snapshotMs,
        better: "lower",
        target: { kind: "<", value: 50 },
        detail: `after appending 1,000 leaves (${fmtNum(stall.appendMs)} ms): longest event-loop delay while DurableDb.compact() ran, monitorEventLoopDelay at 1 ms resolution`,
      },
      {
        name: `kill -9 at ${fmtNum(n)} leaves, restarts with every acknowledged append and its root`,
        ours: kept,
        unit: "restarts",
        peerLabel: "kills",
        peer: kills.length,
        better: "higher",
        target: { kind: "ratio>=", value: 1.0 },
        detail: kills
          .map((k) => `${k.killedAt}: acked ${fmtNum(k.acked)}, reopened at ${fmtNum(k.restartedAt)}, root ${k.sameRoot ? "equal" : "DIFFERENT"}`)
          .join("; "),
      },
    ];
    return {
      metrics,
      notes: [
        `relay (the server bundle, its own process) on a copy of the prepared pool with storage.snapshotIntervalSec 1 (ours) or 0 (peer); deposits are durable writes to a sandbox pool, so each second's snapshot covers the whole store (SQLite image export, page-file fsync, journal cut)`,
        `snapshot = export of the SQLite image (pools, roots, relays...; the tree and leaf metadata are page files, fsynced off the event loop), then write + fsync + rename, then the journal cut`,
        `kill -9 writer: bench/servers/kill-writer.ts appends 100 leaves per durable write to the ${fmtNum(n)}-leaf pool with a 256 KiB journal threshold (a snapshot every few appends); the reopen is DurableDb.open + SqlTreeStore.loadTree, as the relay starts`,
      ],
    };
  },
};

export default snapshot;
