/**
 * Smoke test for the benchmark runner: `--quick` must run every case and
 * print every report line. It asserts shape only, never timings: those depend
 * on the machine and are judged by people reading the report.
 * Run: npx vitest run --config bench/vitest.config.ts
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const NUM = String.raw`[\d,]+(?:\.\d+)?`;
/** "name: ours X unit | peer Y unit | ratio Rx (...)". */
const line = (name: string, unit: string): RegExp =>
  new RegExp(String.raw`^${name}[^\n]*: ours ${NUM} ${unit} \| [^|\n]+ ${NUM} ${unit} \| ratio ${NUM}x[^\n]*\((?:target [^)]+|no target)\)`, "m");

describe("bench/run.ts --quick", () => {
  it("prints one report line per benchmark, with peer, ratio and target", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "bench/run.ts", "--quick"], { cwd: ROOT, encoding: "utf8", timeout: 540_000 });
    const out = run.stdout;
    expect(run.status, `exit ${run.status}\n${out}\n${run.stderr.slice(-3000)}`).toBe(0);
    expect(out).not.toMatch(/FAILED/);
    for (const re of [
      line(String.raw`poseidon hash\(\[a,b\]\)`, "h/s"),
      line("poseidon hashPairs", "h/s"),
      line("batch append .* \\(pages of 1000\\)", "leaves/s"),
      line("batch append .* \\(one batch\\)", "leaves/s"),
      line("deposits one-by-one, persisted", "deposits/s"),
      line("deposits one-by-one via HTTP", "deposits/s"),
      line("sandbox deposits via HTTP, signatures checked, \\d+ in flight", "deposits/s"),
      line("get_proof in-process", "proofs/s"),
      line("get_proof HTTP req/s", "req/s"),
      line("get_proof HTTP p99 latency", "ms"),
      line('start-up to "listening on"', "ms"),
      line('CPU time to "listening on"', "ms"),
      line("RSS after start, [\\d,]+-leaf pool", "MB"),
      line("RSS after start, empty data dir", "MB"),
      line("get_proof p99 while snapshots of the [\\d,]+-leaf store", "ms"),
      line("event-loop pause during a snapshot", "ms"),
      line("kill -9 at [\\d,]+ leaves", "restarts"),
      line("withdraw circuit constraints \\(v3\\)", "constraints"),
      line("proving one withdrawal \\(v3", "ms"),
      line("proving one withdrawal in the SDK", "ms"),
    ]) {
      expect(out).toMatch(re);
    }
    expect(out).toMatch(/^# targets missed: /m);
  }, 600_000);
});
