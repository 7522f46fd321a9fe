import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { ensureServerBuilt, SERVER_ENTRY } from "../../scripts/build-server.mjs";
import { createFastPoseidonHasher } from "../../src-server/adapters/poseidon-fast/fast-hasher";
import { DurableDb } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../../src-server/adapters/storage-sqljs/tree-store";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { BENCH_MINT, BENCH_NETWORK, copyPool, dirBytes, preparedPool, ROOT, tempDir } from "../lib/data";
import type { Metric } from "../lib/metric";
import { logMessage, procCpuMs, procMemoryMb, spawnListening, type ListeningProcess } from "../lib/proc";
import { fmtNum, median } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";

/** What `npm start` runs (scripts/start.mjs): the server bundle, built by the same function when missing or stale. */
const RELAY_ARGS = [SERVER_ENTRY];
/** `npm start` itself: the launcher, which checks both bundles and spawns RELAY_ARGS. */
const START_ARGS = ["scripts/start.mjs"];
const RELAY_ENV = { RELAY_HOST: "127.0.0.1", RELAY_PORT: "0", RELAY_RATE_LIMITS: "off" };
const BARE_ARGS = ["-e", "console.log('bare listening on http://127.0.0.1:0'); setInterval(() => {}, 1 << 30)"];

interface Sample {
  readyMs: number;
  /** CPU time (user + sys) used up to the listening line: robust to other load on the machine. */
  cpuMs: number;
  /** The main thread's share of cpuMs; the rest is V8's platform threads (GC, compilers) and the worker threads. */
  mainCpuMs: number;
  rss: number;
  hwm: number;
  stopMs: number;
  /** When the first config line appeared (modules loaded) and the relayer line (store opened). */
  configAt: number | null;
  relayerAt: number | null;
}

/** User + system CPU of one thread of a process, from /proc/<pid>/task/<tid>/stat (clock ticks of 10 ms). */
function threadCpuMs(pid: number, tid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
}

async function sample(args: string[], env: Record<string, string>, check?: (p: ListeningProcess) => Promise<void>): Promise<Sample> {
  const p = await spawnListening(args, env);
  const mem = procMemoryMb(p.pid);
  const cpuMs = procCpuMs(p.pid) ?? NaN;
  const mainCpuMs = threadCpuMs(p.pid, p.pid);
  let stop: { ms: number };
  try {
    await check?.(p);
  } finally {
    stop = await p.stop("SIGTERM");
  }
  if (!mem) throw new Error(`could not read /proc/${p.pid}/status`);
  const at = (re: RegExp): number | null => p.lines.find((l) => re.test(logMessage(l.text)))?.atMs ?? null;
  return { readyMs: p.readyMs, cpuMs, mainCpuMs, rss: mem.rss, hwm: mem.hwm, stopMs: stop.ms, configAt: at(/^config:/), relayerAt: at(/^relayer:/) };
}

async function openAndLoad(src: string): Promise<{ openMs: number; loadMs: number; rssAfterOpen: number; rssAfterLoad: number }> {
  const dir = copyPool(src, "startup-inproc");
  const rssMb = (): number => process.memoryUsage().rss / 2 ** 20;
  try {
    const hasher = await createFastPoseidonHasher();
    let t = performance.now();
    const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
    const openMs = performance.now() - t;
    const rssAfterOpen = rssMb();
    const store = new SqlTreeStore(db);
    const pool = (await store.listPools()).find((p) => p.mint === BENCH_MINT);
    if (!pool) throw new Error("prepared pool missing");
    const tree = new MerkleTree(hasher);
    t = performance.now();
    await store.loadTree(pool, tree);
    const loadMs = performance.now() - t;
    const rssAfterLoad = rssMb();
    await db.close();
    return { openMs, loadMs, rssAfterOpen, rssAfterLoad };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The SQLite image alone: what sql.js copies into memory at every start. */
function imageMiB(dir: string): number {
  const image = readdirSync(dir).find((f) => f.endsWith(".sqlite"));
  return image ? statSync(path.join(dir, image)).size / 2 ** 20 : 0;
}

const startup: BenchCase = {
  name: "startup",
  title: "Start-up time and RSS",
  async run({ quick, log }) {
    const n = quick ? 10_000 : 1_000_000;
    const reps = quick ? 1 : 5;
    const t0 = performance.now();
    const prepared = await preparedPool(n, log);
    const prepMs = performance.now() - t0;
    const dataBytes = dirBytes(prepared.dir);
    if (await ensureServerBuilt()) log(`built the server bundle ${path.relative(ROOT, SERVER_ENTRY)}`);

    // Bare node: the floor of any node process start.
    const bare: Sample[] = [];
    for (let r = 0; r < reps + 1; r++) bare.push(await sample(BARE_ARGS, {}));
    bare.shift();

    // One untimed relay start on an empty data dir warms the page cache; then the empty-pool reference (a fresh data dir
    // each: the first start of a data dir creates its keys and store, as an operator's first `npm start` does), median of
    // `reps`; and once through the launcher, `node scripts/start.mjs`, as `npm start` runs it.
    const empties: Sample[] = [];
    let launcher: Sample;
    const emptyDir = (): string => tempDir("startup-empty");
    const used: string[] = [];
    try {
      for (let r = 0; r < reps + 1; r++) {
        used.push(emptyDir());
        empties.push(await sample(RELAY_ARGS, { ...RELAY_ENV, RELAY_DATA_DIR: used.at(-1)! }));
      }
      empties.shift();
      used.push(emptyDir());
      launcher = await sample(START_ARGS, { ...RELAY_ENV, RELAY_DATA_DIR: used.at(-1)! });
    } finally {
      for (const d of used) rmSync(d, { recursive: true, force: true });
    }

    log(`${reps} relay start(s) on a copy of the ${fmtNum(n)}-leaf pool (${fmtNum(dataBytes / 2 ** 20, 1)} MiB)`);
    const ours: Sample[] = [];
    for (let r = 0; r < reps; r++) {
      const dir = copyPool(prepared.dir, "startup");
      try {
        ours.push(
          await sample(RELAY_ARGS, { ...RELAY_ENV, RELAY_DATA_DIR: dir }, async (p) => {
            // The pool must really be loaded, or the start-up figure means nothing.
            const res = await fetch(`${p.url}/get_merkle/${BENCH_MINT}/32/${BENCH_NETWORK}`, { method: "POST" });
            const body = (await res.json()) as { json?: { nextIndex?: number } };
            if (body.json?.nextIndex !== n) throw new Error(`relay reports ${JSON.stringify(body).slice(0, 200)}, expected nextIndex ${n}`);
          }),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    // Where the pool's cost lands, measured in this process on one more copy.
    const inproc = await openAndLoad(prepared.dir);

    const med = (xs: Sample[], k: keyof Sample): number => median(xs.map((s) => s[k] ?? NaN));
    const empty: Sample = { ...empties[0]!, ...Object.fromEntries((Object.keys(empties[0]!) as (keyof Sample)[]).map((k) => [k, med(empties, k)])) };
    const metrics: Metric[] = [
      {
        name: `start-up to "listening on", ${fmtNum(n)}-leaf pool`,
        ours: med(ours, "readyMs"),
        unit: "ms",
        peerLabel: "bare node -e",
        peer: med(bare, "readyMs"),
        better: "lower",
        target: { kind: "ratio<=", value: 6 },
        detail: `median of ${reps}: ${ours.map((s) => fmtNum(s.readyMs)).join(", ")} ms; bare ${bare.map((s) => fmtNum(s.readyMs)).join(", ")} ms`,
      },
      {
        name: `CPU time to "listening on", ${fmtNum(n)}-leaf pool`,
        ours: med(ours, "cpuMs"),
        unit: "ms",
        peerLabel: "bare node -e",
        peer: med(bare, "cpuMs"),
        better: "lower",
        target: { kind: "ratio<=", value: 6 },
        detail: `user + system from /proc/<pid>/stat at the listening line, all threads (main thread ${fmtNum(med(ours, "mainCpuMs"))} ms, the rest V8's platform threads and the workers); median of ${reps}: ${ours.map((s) => fmtNum(s.cpuMs)).join(", ")} ms`,
      },
      {
        name: `RSS after start, ${fmtNum(n)}-leaf pool`,
        ours: med(ours, "rss"),
        unit: "MB",
        peerLabel: "bare node -e",
        peer: med(bare, "rss"),
        better: "lower",
        target: { kind: "<=", value: 200 },
        detail: `VmRSS at the listening line; peak VmHWM ${fmtNum(med(ours, "hwm"))} MB`,
      },
      {
        name: "RSS after start, empty data dir",
        ours: empty.rss,
        unit: "MB",
        peerLabel: "bare node -e",
        peer: med(bare, "rss"),
        better: "lower",
        target: { kind: "<=", value: 130 },
        detail: `median of ${reps} first starts on a fresh data dir; peak VmHWM ${fmtNum(empty.hwm)} MB`,
      },
    ];
    return {
      metrics,
      notes: [
        `real server, as npm start runs it: node ${path.relative(ROOT, SERVER_ENTRY)} (the loader that runs the esbuild bundle of src-server/main.ts through its V8 code cache, scripts/build-server.mjs), RELAY_PORT=0, RELAY_DATA_DIR = a fresh copy of the prepared pool each start; timed from spawn to the "listening on" line`,
        `phases (medians, ms since spawn): first config line ${fmtNum(med(ours, "configAt"))} (modules loaded), relayer line ${fmtNum(med(ours, "relayerAt"))} (hasher built, store opened), listening ${fmtNum(med(ours, "readyMs"))} (verifier, chains, indexer tree load, HTTP app)`,
        `in-process on the same data: DurableDb.open ${fmtNum(inproc.openMs)} ms (RSS ${fmtNum(inproc.rssAfterOpen)} MB), SqlTreeStore.loadTree ${fmtNum(inproc.loadMs)} ms (RSS ${fmtNum(inproc.rssAfterLoad)} MB)`,
        `same server on an empty data dir (medians): listening at ${fmtNum(empty.readyMs)} ms, CPU ${fmtNum(empty.cpuMs)} ms (config line ${fmtNum(empty.configAt ?? NaN)}, relayer line ${fmtNum(empty.relayerAt ?? NaN)}), RSS ${fmtNum(empty.rss)} MB; so the ${fmtNum(n)}-leaf pool adds ${fmtNum(med(ours, "readyMs") - empty.readyMs)} ms and ${fmtNum(med(ours, "rss") - empty.rss)} MB`,
        `through the launcher (node scripts/start.mjs, bundles fresh) on an empty data dir: listening at ${fmtNum(launcher.readyMs)} ms; the launcher's own CPU ${fmtNum(launcher.cpuMs)} ms, RSS ${fmtNum(launcher.rss)} MB (the server's are above)`,
        `data dir ${fmtNum(dataBytes / 2 ** 20, 1)} MiB (SQLite image ${fmtNum(imageMiB(prepared.dir), 1)} MiB + page files: tree levels, per-leaf signature/slot records, times, kinds and amounts); SIGTERM to exit (final snapshot) ${fmtNum(med(ours, "stopMs"))} ms`,
        `prepared pool: ${prepared.cached ? `reused from the out/bench cache (built in ${fmtNum(prepared.buildMs / 1000, 1)} s when first made)` : `built now in ${fmtNum(prepMs / 1000, 1)} s and cached under out/bench/`}`,
      ],
    };
  },
};

export default startup;
