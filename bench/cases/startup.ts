import { readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { ensureServerBuilt, SERVER_ENTRY } from "../../scripts/build-server.mjs";
import { createFastPoseidonHasher } from "../../src-server/adapters/poseidon-fast/fast-hasher";
import { DurableDb } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../../src-server/adapters/storage-sqljs/tree-store";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { BENCH_MINT, BENCH_NETWORK, copyPool, dirBytes, preparedPool, ROOT, tempDir } from "../lib/data";
import type { Metric } from "../lib/metric";
import { LANE_THREAD_NAME } from "../../src-server/adapters/frontier-lane/lane";
import { VERIFY_THREAD_NAME } from "../../src-server/adapters/verifier-groth16/worker-pool";
import { logMessage, procCpuMs, procMemoryMb, procThreadsCpu, spawnListening, type ListeningProcess, type ThreadCpu } from "../lib/proc";
import { fmtNum, median } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";

/** What `npm start` runs (scripts/start.mjs): the server bundle, built by the same function when missing or stale. */
const RELAY_ARGS = [SERVER_ENTRY];
/** `npm start` itself: the launcher, which checks both bundles and spawns RELAY_ARGS. */
const START_ARGS = ["scripts/start.mjs"];
const RELAY_ENV = { RELAY_HOST: "127.0.0.1", RELAY_PORT: "0", RELAY_RATE_LIMITS: "off" };
const BARE_ARGS = ["-e", "console.log('bare listening on http://127.0.0.1:0'); setInterval(() => {}, 1 << 30)"];

interface Sample {
  pid: number;
  readyMs: number;
  /** CPU time (user + sys) used up to the listening line: robust to other load on the machine. */
  cpuMs: number;
  /** The main thread's share of cpuMs; the rest is V8's platform threads (GC, compilers) and the worker threads. */
  mainCpuMs: number;
  /** Every thread's CPU at the listening line (kinds: cpuByKind). */
  threads: ThreadCpu[];
  /** CPU once the process has gone quiet after listening (workers booted, background compiles done), and when (ms since spawn). */
  warmCpuMs: number;
  warmAt: number;
  warmThreads: ThreadCpu[];
  /** VmRSS then (the verifier's workers boot after the listening line). */
  warmRss: number;
  rss: number;
  hwm: number;
  stopMs: number;
  /** When the first config line appeared (modules loaded) and the relayer line (store opened). */
  configAt: number | null;
  relayerAt: number | null;
}

/** Where a start's CPU goes, by thread. */
const THREAD_KINDS = {
  main: "main thread",
  verifier: "verifier workers",
  lane: "frontier lane",
  platform: "V8 platform threads (GC, TurboFan, wasm tier-up)",
  other: "libuv pool and other",
} as const;
type ThreadKind = keyof typeof THREAD_KINDS;
type NumericKey = { [K in keyof Sample]: Sample[K] extends number | null ? K : never }[keyof Sample];

/** Each kind's median over the samples, in ms, kinds with no CPU left out. */
function byKindText(samples: Record<ThreadKind, number>[]): string {
  const parts = (Object.keys(THREAD_KINDS) as ThreadKind[]).map((k) => [k, median(samples.map((s) => s[k]))] as const);
  return parts
    .filter(([, ms]) => ms > 0)
    .map(([k, ms]) => `${THREAD_KINDS[k]} ${fmtNum(ms)}`)
    .join(", ");
}

/**
 * A process's CPU by kind of thread. The main thread has the process's id; the relay names its
 * workers (src-server/adapters/threads/name-worker-thread.ts); Node's own threads are all "node",
 * and the first `nodeOwn` of them (by id: created first, at process start; as many as a bare
 * node has besides its main thread) are V8's platform workers, its delayed-task scheduler and
 * the inspector's signal thread, while later ones are libuv's pool (created at the first
 * asynchronous file call).
 */
function cpuByKind(threads: ThreadCpu[], pid: number, nodeOwn: number): Record<ThreadKind, number> {
  const out: Record<ThreadKind, number> = { main: 0, verifier: 0, lane: 0, platform: 0, other: 0 };
  let unnamed = 0;
  for (const t of threads) {
    let kind: ThreadKind = "other";
    if (t.tid === pid) kind = "main";
    else if (t.name === VERIFY_THREAD_NAME) kind = "verifier";
    else if (t.name === LANE_THREAD_NAME) kind = "lane";
    else if (unnamed++ < nodeOwn) kind = "platform";
    out[kind] += t.cpuMs;
  }
  return out;
}

/**
 * Waits until the process has used no more than one clock tick of CPU over `quietMs` (what
 * the start left running after "listening on" has finished: workers booting, background
 * compiles), at most `maxMs`; answers every thread's CPU then, and when (ms since spawn).
 */
async function whenQuiet(
  p: ListeningProcess,
  quietMs = 600,
  maxMs = 10_000,
): Promise<{ atMs: number; cpuMs: number; threads: ThreadCpu[]; rss: number; hwm: number }> {
  const readings: { at: number; cpu: number }[] = [];
  const until = performance.now() + maxMs;
  for (;;) {
    const threads = procThreadsCpu(p.pid);
    const cpuMs = procCpuMs(p.pid) ?? NaN;
    const at = performance.now();
    readings.push({ at, cpu: cpuMs });
    const windowStart = readings.find((r) => r.at >= at - quietMs)!;
    const quiet = readings[0]!.at <= at - quietMs && cpuMs - windowStart.cpu <= 10;
    if (quiet || at > until) {
      const mem = procMemoryMb(p.pid);
      return { atMs: p.readyMs + (at - readings[0]!.at), cpuMs, threads, rss: mem?.rss ?? NaN, hwm: mem?.hwm ?? NaN };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function sample(args: string[], env: Record<string, string>, check?: (p: ListeningProcess) => Promise<void>): Promise<Sample> {
  const p = await spawnListening(args, env);
  const mem = procMemoryMb(p.pid);
  const cpuMs = procCpuMs(p.pid) ?? NaN;
  const threads = procThreadsCpu(p.pid);
  const mainCpuMs = threads.find((t) => t.tid === p.pid)?.cpuMs ?? NaN;
  let stop: { ms: number };
  let warm: Awaited<ReturnType<typeof whenQuiet>>;
  try {
    warm = await whenQuiet(p);
    await check?.(p);
  } finally {
    stop = await p.stop("SIGTERM");
  }
  if (!mem) throw new Error(`could not read /proc/${p.pid}/status`);
  const at = (re: RegExp): number | null => p.lines.find((l) => re.test(logMessage(l.text)))?.atMs ?? null;
  return {
    pid: p.pid,
    readyMs: p.readyMs,
    cpuMs,
    mainCpuMs,
    threads,
    warmCpuMs: warm.cpuMs,
    warmAt: warm.atMs,
    warmThreads: warm.threads,
    warmRss: warm.rss,
    rss: mem.rss,
    // The peak until warm, past the listening line (the verifier's workers boot after it).
    hwm: warm.hwm,
    stopMs: stop.ms,
    configAt: at(/^config:/),
    relayerAt: at(/^relayer:/),
  };
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

/**
 * One untimed relay start on an empty data dir warms the page cache; then the empty-pool reference (a fresh data dir
 * each: the first start of a data dir creates its keys and store, as an operator's first `npm start` does), `reps` of
 * them; and once through the launcher, `node scripts/start.mjs`, as `npm start` runs it.
 */
async function emptyDirStarts(reps: number): Promise<{ empties: Sample[]; launcher: Sample }> {
  const empties: Sample[] = [];
  const used: string[] = [];
  const emptyDir = (): string => {
    used.push(tempDir("startup-empty"));
    return used.at(-1)!;
  };
  try {
    for (let r = 0; r < reps + 1; r++) empties.push(await sample(RELAY_ARGS, { ...RELAY_ENV, RELAY_DATA_DIR: emptyDir() }));
    empties.shift();
    return { empties, launcher: await sample(START_ARGS, { ...RELAY_ENV, RELAY_DATA_DIR: emptyDir() }) };
  } finally {
    for (const d of used) rmSync(d, { recursive: true, force: true });
  }
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

    const { empties, launcher } = await emptyDirStarts(reps);

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

    const med = (xs: Sample[], k: NumericKey): number => median(xs.map((s) => s[k] ?? NaN));
    const numeric = (Object.keys(empties[0]!) as (keyof Sample)[]).filter((k): k is NumericKey => typeof empties[0]![k] === "number");
    const empty: Sample = { ...empties[0]!, ...Object.fromEntries(numeric.map((k) => [k, med(empties, k)])) };
    // Node's own threads besides the main one: what a bare node starts (cpuByKind).
    const nodeOwn = median(bare.map((s) => s.threads.length - 1));
    const kinds = (xs: Sample[], at: "threads" | "warmThreads"): string => byKindText(xs.map((s) => cpuByKind(s[at], s.pid, nodeOwn)));
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
        detail: `user + system from /proc/<pid>/stat at the listening line, all threads; by thread (medians, ms): ${kinds(ours, "threads")}; bare: ${kinds(bare, "threads")}; median of ${reps}: ${ours.map((s) => fmtNum(s.cpuMs)).join(", ")} ms`,
      },
      {
        name: `CPU time until warm (quiet after "listening on"), ${fmtNum(n)}-leaf pool`,
        ours: med(ours, "warmCpuMs"),
        unit: "ms",
        peerLabel: "bare node -e",
        peer: med(bare, "warmCpuMs"),
        better: "lower",
        target: null,
        detail: `all the start's work, including what runs after the listening line (verifier workers booting, background compiles): CPU once the process used at most one 10 ms tick in 600 ms, at ${fmtNum(med(ours, "warmAt"))} ms after spawn; by thread (medians, ms): ${kinds(ours, "warmThreads")}`,
      },
      {
        name: `RSS after start, ${fmtNum(n)}-leaf pool`,
        ours: med(ours, "rss"),
        unit: "MB",
        peerLabel: "bare node -e",
        peer: med(bare, "rss"),
        better: "lower",
        target: { kind: "<=", value: 200 },
        detail: `VmRSS at the listening line; once warm (verifier workers booted) ${fmtNum(med(ours, "warmRss"))} MB; peak VmHWM until warm ${fmtNum(med(ours, "hwm"))} MB`,
      },
      {
        name: "RSS after start, empty data dir",
        ours: empty.rss,
        unit: "MB",
        peerLabel: "bare node -e",
        peer: med(bare, "rss"),
        better: "lower",
        target: { kind: "<=", value: 130 },
        detail: `median of ${reps} first starts on a fresh data dir; once warm ${fmtNum(empty.warmRss)} MB; peak VmHWM until warm ${fmtNum(empty.hwm)} MB`,
      },
    ];
    return {
      metrics,
      notes: [
        `real server, as npm start runs it: node ${path.relative(ROOT, SERVER_ENTRY)} (the loader that runs the esbuild bundle of src-server/main.ts through its V8 code cache, scripts/build-server.mjs), RELAY_PORT=0, RELAY_DATA_DIR = a fresh copy of the prepared pool each start; timed from spawn to the "listening on" line`,
        `phases (medians, ms since spawn): first config line ${fmtNum(med(ours, "configAt"))} (modules loaded), relayer line ${fmtNum(med(ours, "relayerAt"))} (hasher built, store opened), listening ${fmtNum(med(ours, "readyMs"))} (verifier, chains, indexer tree load, HTTP app)`,
        `in-process on the same data: DurableDb.open ${fmtNum(inproc.openMs)} ms (RSS ${fmtNum(inproc.rssAfterOpen)} MB), SqlTreeStore.loadTree ${fmtNum(inproc.loadMs)} ms (RSS ${fmtNum(inproc.rssAfterLoad)} MB)`,
        `same server on an empty data dir (medians): listening at ${fmtNum(empty.readyMs)} ms, CPU ${fmtNum(empty.cpuMs)} ms (until warm ${fmtNum(empty.warmCpuMs)} ms; ${kinds(empties, "threads")}) (config line ${fmtNum(empty.configAt ?? NaN)}, relayer line ${fmtNum(empty.relayerAt ?? NaN)}), RSS ${fmtNum(empty.rss)} MB; so the ${fmtNum(n)}-leaf pool adds ${fmtNum(med(ours, "readyMs") - empty.readyMs)} ms and ${fmtNum(med(ours, "rss") - empty.rss)} MB`,
        `through the launcher (node scripts/start.mjs, bundles fresh) on an empty data dir: listening at ${fmtNum(launcher.readyMs)} ms; the launcher's own CPU ${fmtNum(launcher.cpuMs)} ms, RSS ${fmtNum(launcher.rss)} MB (the server's are above)`,
        `data dir ${fmtNum(dataBytes / 2 ** 20, 1)} MiB (SQLite image ${fmtNum(imageMiB(prepared.dir), 1)} MiB + page files: tree levels, per-leaf signature/slot records, times, kinds and amounts); SIGTERM to exit (final snapshot) ${fmtNum(med(ours, "stopMs"))} ms`,
        `prepared pool: ${prepared.cached ? `reused from the out/bench cache (built in ${fmtNum(prepared.buildMs / 1000, 1)} s when first made)` : `built now in ${fmtNum(prepMs / 1000, 1)} s and cached under out/bench/`}`,
      ],
    };
  },
};

export default startup;
