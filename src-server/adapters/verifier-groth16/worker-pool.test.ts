import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGroth16Verifier, Groth16WorkerPool, VerifierBusyError, VerifierClosedError, VerifierWorkerCrashedError } from "./worker-pool";
import { loadFixtures, VKEY_PATH, type WireCase } from "../../../tests/support/groth16/fixtures";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const mutate = (p: Uint8Array, i: number): Uint8Array => {
  const m = p.slice();
  m[i % 256]! ^= 1 << (i % 8);
  return m;
};

describe("Groth16WorkerPool (ProofVerifier)", () => {
  let fixtures: WireCase[];
  beforeAll(() => {
    fixtures = loadFixtures();
  });

  describe("with 2 workers", () => {
    let pool: Groth16WorkerPool;
    beforeAll(async () => {
      pool = await Groth16WorkerPool.start(VKEY_PATH, { threads: 2 });
    });
    afterAll(() => pool.close());

    it("resolves 50 concurrent verifications correctly while the main thread stays responsive (event-loop delay reported)", async () => {
      const jobs = Array.from({ length: 50 }, (_, i) => {
        const f = fixtures[i % 3]!;
        const valid = i % 2 === 0;
        return { proof: valid ? f.proof : mutate(f.proof, 7 * i + 1), signals: f.signals, valid };
      });
      const h = monitorEventLoopDelay({ resolution: 1 });
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 5);
      h.enable();
      const t0 = performance.now();
      const results = await Promise.all(jobs.map((j) => pool.verify(j.proof, j.signals)));
      const ms = performance.now() - t0;
      h.disable();
      clearInterval(ticker);
      expect(results).toEqual(jobs.map((j) => j.valid));
      const f = (ns: number) => (ns / 1e6).toFixed(2);
      console.log(
        `pool (${pool.threads} workers): 50 verifications in ${ms.toFixed(0)} ms (${(ms / 50).toFixed(2)} ms each, ${((50 / ms) * 1000).toFixed(0)}/s); ` +
          `event-loop delay p50 ${f(h.percentile(50))} ms, p99 ${f(h.percentile(99))} ms, max ${f(h.max)} ms; 5 ms ticker fired ${ticks} times`,
      );
      expect(pool.pending).toBe(0);
    });

    it("answers false without a worker round trip for a wrong-length proof, signal or signal count", async () => {
      const f = fixtures[0]!;
      await expect(pool.verify(f.proof.subarray(0, 255), f.signals)).resolves.toBe(false);
      await expect(pool.verify(f.proof, f.signals.slice(0, 4))).resolves.toBe(false);
      await expect(pool.verify(f.proof, [f.signals[0]!.subarray(1), ...f.signals.slice(1)])).resolves.toBe(false);
      await expect(pool.verify("nope" as unknown as Uint8Array, f.signals)).resolves.toBe(false);
    });

    it("copies the request: the caller's buffers stay usable (nothing is detached)", async () => {
      const f = fixtures[1]!;
      const backing = new Uint8Array(1024);
      backing.set(f.proof, 100);
      const view = backing.subarray(100, 356);
      await expect(pool.verify(view, f.signals)).resolves.toBe(true);
      expect(backing.byteLength).toBe(1024);
      expect(view).toEqual(f.proof);
    });

    it("replaces a crashed worker: its running request rejects with VerifierWorkerCrashedError, later ones verify", async () => {
      const f = fixtures[0]!;
      const before = pool.crashCount;
      // Enough queued work (~5 ms each) that worker 0 is certainly mid-job when it dies, however loaded the machine.
      const running = Array.from({ length: 40 }, () => pool.verify(f.proof, f.signals));
      await pool.crashWorkerForTest(0);
      const settled = await Promise.allSettled(running);
      const crashed = settled.filter((s) => s.status === "rejected");
      expect(crashed.length).toBeGreaterThanOrEqual(1);
      for (const c of crashed) expect((c as PromiseRejectedResult).reason).toBeInstanceOf(VerifierWorkerCrashedError);
      for (const s of settled) if (s.status === "fulfilled") expect(s.value).toBe(true);
      expect(pool.crashCount).toBe(before + 1);
      const after = await Promise.all(fixtures.map((x) => pool.verify(x.proof, x.signals)));
      expect(after).toEqual(fixtures.map(() => true));
      // Both workers serve again.
      await expect.poll(() => (pool as unknown as { slots: unknown[] }).slots.length, { timeout: 10_000 }).toBe(2);
    });
  });

  it("rejects with VerifierBusyError at once when the bounded queue is full, and serves what it accepted", async () => {
    const pool = await Groth16WorkerPool.start(VKEY_PATH, { threads: 1, maxQueue: 2 });
    try {
      const f = fixtures[0]!;
      const all = Array.from({ length: 6 }, () => pool.verify(f.proof, f.signals));
      const settled = await Promise.allSettled(all);
      // 1 running + 2 queued accepted; the other 3 refused.
      expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "rejected", "rejected"]);
      for (const s of settled.slice(0, 3)) expect((s as PromiseFulfilledResult<boolean>).value).toBe(true);
      const reason = (settled[3] as PromiseRejectedResult).reason as Error;
      expect(reason).toBeInstanceOf(VerifierBusyError);
      expect(reason.message).toMatch(/queue full/);
    } finally {
      await pool.close();
    }
  });

  it("close() rejects queued requests with VerifierClosedError, lets the running one finish, and refuses new ones", async () => {
    const pool = await Groth16WorkerPool.start(VKEY_PATH, { threads: 1 });
    const f = fixtures[2]!;
    const all = Promise.allSettled(Array.from({ length: 4 }, () => pool.verify(f.proof, f.signals)));
    await pool.close();
    const settled = await all;
    expect(settled[0]).toEqual({ status: "fulfilled", value: true });
    for (const s of settled.slice(1)) expect((s as PromiseRejectedResult).reason).toBeInstanceOf(VerifierClosedError);
    await expect(pool.verify(f.proof, f.signals)).rejects.toBeInstanceOf(VerifierClosedError);
    await pool.close(); // idempotent
  });

  it("close(drainMs) stops waiting for running requests after drainMs and rejects them with VerifierClosedError", async () => {
    const pool = await Groth16WorkerPool.start(VKEY_PATH, { threads: 1 });
    const f = fixtures[0]!;
    const running = Promise.allSettled([pool.verify(f.proof, f.signals)]);
    await pool.close(0);
    const [only] = await running;
    expect((only as PromiseRejectedResult).reason).toBeInstanceOf(VerifierClosedError);
  });

  it("createGroth16Verifier refuses a key whose points are invalid (the workers report it; the pool stops them)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vk-"));
    try {
      const vk = JSON.parse(readFileSync(VKEY_PATH, "utf8")) as { vk_alpha_1: string[] };
      vk.vk_alpha_1 = [vk.vk_alpha_1[0]!, "5", "1"];
      const bad = join(dir, "vk.json");
      writeFileSync(bad, JSON.stringify(vk));
      await expect(createGroth16Verifier(bad, { threads: 2 })).rejects.toThrow(/failed to start: vk_alpha_1: not on the curve/);
      writeFileSync(bad, JSON.stringify({ ...vk, protocol: "plonk" }));
      await expect(createGroth16Verifier(bad)).rejects.toThrow(/not groth16/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("starts its TypeScript workers under `node --import tsx` too (how the relay runs)", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "tests/support/groth16/pool-smoke.ts"], {
      cwd: ROOT,
      timeout: 60_000,
    });
    const out = JSON.parse(stdout.trim().split("\n").pop()!) as { valid: boolean[]; mutated: boolean; execArgv: string[] };
    expect(out).toMatchObject({ valid: loadFixtures().map(() => true), mutated: false });
    expect(out.execArgv).toEqual(["--import", "tsx"]);
  });
});
