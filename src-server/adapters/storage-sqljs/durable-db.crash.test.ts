import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { DurableDb, type SnapshotStep } from "./durable-db";
import { crashMigrations, expectedHash, mix, payloadFor } from "../../../tests/support/durable-db-crash/crash-schema";

const FIXTURE = fileURLToPath(new URL("../../../tests/support/durable-db-crash/crash-writer.ts", import.meta.url));
/** Tiny, so the child is compacting nearly all the time and kills often land mid-snapshot. */
const JOURNAL_BYTES = 8 * 1024;
const STEPS: SnapshotStep[] = ["fsync-pages", "write-tmp", "fsync-tmp", "rename", "fsync-dir", "truncate-journal"];
const ROUNDS = 6;

type KillPlan = { after: "ready"; delayMs: number } | { after: "step"; step: SnapshotStep; nth: number };

interface Round {
  maxAck: number;
  acks: number;
  sawTarget: boolean;
  signal: NodeJS.Signals | null;
}

/** Seeded so a failing run can be replayed from the seed in the assertion message. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function runUntilKilled(dir: string, plan: KillPlan): Promise<Round> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, dir, String(JOURNAL_BYTES)], { stdio: ["ignore", "pipe", "pipe"] });
    const round: Round = { maxAck: 0, acks: 0, sawTarget: false, signal: null };
    let stderr = "";
    let partial = "";
    let stepsSeen = 0;
    const kill = (): void => void child.kill("SIGKILL");
    const watchdog = setTimeout(kill, 8_000);
    child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      const lines = (partial + d.toString()).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const [kind, arg] = line.split(" ");
        if (kind === "ack") {
          round.acks++;
          round.maxAck = Math.max(round.maxAck, Number(arg));
        } else if (kind === "ready") {
          // Fallback in case the planned step never comes (it always should with a tiny journal limit).
          setTimeout(kill, plan.after === "ready" ? plan.delayMs : 1_500);
        } else if (kind === "step" && plan.after === "step" && arg === plan.step && ++stepsSeen === plan.nth) {
          round.sawTarget = true;
          kill();
        }
      }
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(watchdog);
      round.signal = signal;
      if (signal !== "SIGKILL") reject(new Error(`child exited on its own (code ${code}): ${stderr}`));
      else resolve(round);
    });
  });
}

const dirs: string[] = [];
/** Instances left open on purpose (a crash closes nothing); held so GC does not close their handles mid-test with a warning. */
const abandoned: DurableDb[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

it("kill -9 at random moments, including mid-snapshot, never loses an acknowledged write or applies one twice", async () => {
  const seed = Date.now();
  const rand = prng(seed);
  const dir = await mkdtemp(join(tmpdir(), "durable-db-crash-"));
  dirs.push(dir);
  let previous = 0;
  let midSnapshotKills = 0;

  for (let r = 0; r < ROUNDS; r++) {
    const plan: KillPlan =
      r % 2 === 0
        ? { after: "ready", delayMs: 50 + Math.floor(rand() * 350) }
        : { after: "step", step: STEPS[Math.floor(rand() * STEPS.length)]!, nth: 1 + Math.floor(rand() * 3) };
    const round = await runUntilKilled(dir, plan);
    if (round.sawTarget) midSnapshotKills++;
    const ctx = `seed ${seed}, round ${r}, plan ${JSON.stringify(plan)}, acks ${round.acks}`;

    const db = await DurableDb.open({ dir, migrations: crashMigrations, functions: { mix }, snapshotIntervalMs: 0 });
    const { n, h } = db.get<{ n: number; h: number }>("SELECT n, h FROM counters WHERE id = 1") ?? { n: -1, h: -1 };
    const { c, mx } = db.get<{ c: number; mx: number | null }>("SELECT count(*) AS c, max(id) AS mx FROM items") ?? { c: -1, mx: null };
    // Every acknowledged write is there, and nothing earlier went missing.
    expect(n, ctx).toBeGreaterThanOrEqual(Math.max(round.maxAck, previous));
    // Increments and inserts travel in one batch: equal counts and ids 1..n mean each batch applied exactly once, in order.
    expect(c, ctx).toBe(n);
    expect(mx ?? 0, ctx).toBe(n);
    expect(h, ctx).toBe(expectedHash(n));
    for (const id of new Set([1, Math.ceil(n / 2), round.maxAck, n].filter((i) => i > 0))) {
      const row = db.get<{ payload: Uint8Array; note: string; x: number }>("SELECT payload, note, x FROM items WHERE id = ?", [id]);
      expect(row, `${ctx}, id ${id}`).toEqual({ payload: payloadFor(id), note: `item ${id} ✓`, x: id / 7 });
    }
    previous = n;
    // Alternate between handing the child a clean snapshot and leaving it a journal to replay.
    if (r % 2 === 0) await db.close();
    else abandoned.push(db);
  }

  expect(previous).toBeGreaterThan(0);
  expect(midSnapshotKills, `seed ${seed}`).toBeGreaterThan(0);
  expect((await readdir(dir)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
}, 60_000);
