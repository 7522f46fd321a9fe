/**
 * Relay benchmarks: `npm run bench [-- --quick] [-- --only a,b]`.
 * Each case runs in its own child process (bench/worker.ts) so heap, JIT and
 * RSS of one do not colour the next; this process only prints the report.
 */
import { execFileSync, spawn } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { CASES } from "./cases/index";
import { ROOT } from "./lib/data";
import { formatMetric, RESULT_MARKER, verdict, type CaseResult } from "./lib/metric";
import { fmtNum } from "./lib/stats";

const TITLES: Record<string, string> = {
  poseidon: "1. Poseidon hashes/s",
  "batch-append": "2. Batch append into a persisted pool",
  deposits: "3. One-by-one deposit indexing",
  proof: "4. get_proof in-process",
  "proof-http": "5. get_proof over HTTP",
  startup: "6. Start-up time and RSS",
};

function usage(): never {
  console.error(`usage: tsx bench/run.ts [--quick] [--only ${Object.keys(CASES).join("|")}[,...]]`);
  process.exit(2);
}

function parseArgs(argv: string[]): { quick: boolean; only: string[] } {
  let quick = false;
  let only = Object.keys(CASES);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--quick") quick = true;
    else if (a === "--only" || a.startsWith("--only=")) {
      const v = a === "--only" ? argv[++i] : a.slice("--only=".length);
      if (!v) usage();
      only = v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      for (const n of only) if (!CASES[n]) usage();
    } else if (a === "--help" || a === "-h") usage();
    else usage();
  }
  return { quick, only };
}

function runCase(name: string, quick: boolean): Promise<CaseResult> {
  return new Promise((resolve, reject) => {
    const args = ["--import", "tsx", "bench/worker.ts", name, ...(quick ? ["--quick"] : [])];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      process.stderr.write(d);
    });
    child.once("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith(RESULT_MARKER));
      if (code === 0 && line) return resolve(JSON.parse(line.slice(RESULT_MARKER.length)) as CaseResult);
      reject(new Error(`exit ${code}${err ? `: ${err.trim().split("\n").slice(-8).join("\n    ")}` : ""}`));
    });
  });
}

function gitHead(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: ROOT, encoding: "utf8" }).trim() !== "";
    return `${head}${dirty ? " (tracked files modified)" : ""}`;
  } catch {
    return "unknown";
  }
}

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

async function main(): Promise<void> {
  const { quick, only } = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const cpu = cpus();
  console.log(`# relay benchmarks${quick ? " (--quick: reduced sizes, smoke run)" : ""}`);
  console.log(
    `# ${new Date().toISOString()} | node ${process.version} | ${cpu.length} x ${cpu[0]?.model ?? "cpu"} | ${fmtNum(totalmem() / 2 ** 30, 1)} GiB | git ${gitHead()}`,
  );
  console.log(`# load average at start: ${load()} (other work on this machine skews absolute figures; ratios are measured in the same run)`);

  const missed: string[] = [];
  const failed: string[] = [];
  for (const name of Object.keys(CASES)) {
    if (!only.includes(name)) continue;
    console.log("");
    console.log(`## ${TITLES[name] ?? name} (load ${load()})`);
    const c0 = performance.now();
    try {
      const result = await runCase(name, quick);
      for (const m of result.metrics) {
        console.log(formatMetric(m));
        if (verdict(m) === "MISSED") missed.push(m.name);
      }
      for (const n of result.notes) console.log(`  - ${n}`);
    } catch (e) {
      failed.push(name);
      console.log(`${name}: FAILED ${(e as Error).message}`);
    }
    console.log(`  (case took ${fmtNum((performance.now() - c0) / 1000, 1)} s)`);
  }

  console.log("");
  console.log(`# targets missed: ${missed.length ? missed.join(", ") : "none"}${failed.length ? ` | cases failed: ${failed.join(", ")}` : ""}`);
  console.log(`# total ${fmtNum((performance.now() - t0) / 1000, 1)} s, load average at end: ${load()}`);
  if (failed.length) process.exitCode = 1;
}

await main();
