import { ensureServerBuilt, SERVER_ENTRY } from "../../scripts/build-server.mjs";
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { ROOT } from "./data";

export interface ListeningProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** ms from spawn to the `listening on` line. */
  readyMs: number;
  /** Output lines with their arrival time (ms since spawn). */
  lines: { atMs: number; text: string }[];
  output(): string;
  /** Sends the signal and resolves with the exit code and how long the exit took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

/**
 * Spawns a process and waits for the `listening on http://...` line that the
 * relay prints when ready (README.md: Running it); the bare peers print the same line.
 */
export function spawnListening(args: string[], env: Record<string, string> = {}, timeoutMs = 180_000): Promise<ListeningProcess> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const lines: { atMs: number; text: string }[] = [];
  let out = "";
  let partial = "";
  const onData = (d: Buffer): void => {
    const at = performance.now() - t0;
    out += d.toString();
    partial += d.toString();
    const parts = partial.split("\n");
    partial = parts.pop()!;
    for (const text of parts) lines.push({ atMs: at, text });
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  return new Promise<ListeningProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no "listening on" line within ${timeoutMs} ms:\n${out.slice(-2000)}`));
    }, timeoutMs);
    const check = (): void => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (!m) return;
      const readyMs = performance.now() - t0;
      clearTimeout(timer);
      child.stdout!.off("data", check);
      resolve({
        child,
        pid: child.pid!,
        url: m[1]!,
        readyMs,
        lines,
        output: () => out,
        stop: async (signal = "SIGTERM") => {
          const s = performance.now();
          child.kill(signal);
          const code = await exited;
          return { code, ms: performance.now() - s };
        },
      });
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code} before listening:\n${out.slice(-2000)}`));
    });
  });
}

/** VmRSS and VmHWM (peak) of a live process, in MB, from /proc. */
export function procMemoryMb(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, ms) a live process has used so far, from
 * /proc/<pid>/stat; unlike wall time it barely moves when other work shares the cores.
 */
export function procCpuMs(pid: number): number | null {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** The same for the process's main thread alone (its task has the process's id): the event loop's share. */
export function procMainThreadCpuMs(pid: number): number | null {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

function statCpuMs(file: string): number | null {
  try {
    const stat = readFileSync(file, "utf8");
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 (1-based), in clock ticks.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(rest[11]) + Number(rest[12]);
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
/** USER_HZ: 100 on every Linux configuration node supports. */
const CLOCK_TICKS = 100;

/**
 * The relay as the benchmarks start it: what `npm start` runs, the server bundle (node
 * out/server/main.js, built first when missing or stale), in its own process. Its figures are
 * production's: the bundle's code, not a runtime transpiler's.
 */
export async function startRelayChild(env: Record<string, string>): Promise<ListeningProcess> {
  await ensureServerBuilt();
  // BENCH_RELAY_NODE_ARGS: node flags for the relay only, e.g. "--cpu-prof --cpu-prof-dir=out/prof" to profile it under a case.
  const nodeArgs = (process.env.BENCH_RELAY_NODE_ARGS ?? "").split(" ").filter((a) => a !== "");
  return spawnListening([...nodeArgs, SERVER_ENTRY], {
    RELAY_HOST: "127.0.0.1",
    RELAY_PORT: "0",
    RELAY_RATE_LIMITS: "off",
    ...env,
  });
}

/** The text of a log line, whether plain or a structured JSON line (`{"msg": ...}`). */
export function logMessage(line: string): string {
  if (!line.startsWith("{")) return line;
  try {
    const msg = (JSON.parse(line) as { msg?: unknown }).msg;
    return typeof msg === "string" ? msg : line;
  } catch {
    return line;
  }
}

/** One thread of a live process: its id, its name (`comm`: "node" for all of Node's own; the relay names its workers, src-server/adapters/threads/name-worker-thread.ts) and its CPU so far. */
export interface ThreadCpu {
  tid: number;
  name: string;
  cpuMs: number;
}

/**
 * Every thread of a live process with its CPU time (ms), in thread-id order; threads that exit
 * while read are left out. From the scheduler's nanoseconds (/proc/<pid>/task/<tid>/schedstat)
 * where the kernel keeps them: each thread's stat ticks are rounded down to 10 ms apiece, which
 * over a dozen threads loses tens of ms that the process's own total keeps.
 */
export function procThreadsCpu(pid: number): ThreadCpu[] {
  let tids: number[];
  try {
    tids = readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
  const out: ThreadCpu[] = [];
  for (const tid of tids.sort((a, b) => a - b)) {
    const cpuMs = schedCpuMs(`/proc/${pid}/task/${tid}/schedstat`) ?? statCpuMs(`/proc/${pid}/task/${tid}/stat`);
    let name: string;
    try {
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
    } catch {
      continue;
    }
    if (cpuMs !== null) out.push({ tid, name, cpuMs });
  }
  return out;
}

/** Time on a CPU (ms) from a schedstat file: its first field, in nanoseconds; null without one. */
function schedCpuMs(file: string): number | null {
  try {
    const ns = Number(readFileSync(file, "utf8").split(" ")[0]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}
