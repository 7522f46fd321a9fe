import type { AdminHealth } from "../../src-shared/api/admin";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LEASE_MS, startClusterEnv, type Cluster, type ClusterEnv, type Instance } from "../support/cluster";
import { waitFor } from "../support/compliance";
import { randomPrecommitment, USDC } from "../support/sandbox";
import { newWallet, type TestWallet } from "../support/wallet";

/**
 * One chain follower per network, elected with a lease and fenced by its epoch (issue 27; DESIGN
 * §12; docs/scale-out.md, "What each failure does"): a dead follower is replaced within 10 s
 * without losing or duplicating a leaf, and a paused one that resumes cannot write.
 */
let env: ClusterEnv;
let c: Cluster;
let depositor: TestWallet;

beforeAll(async () => {
  env = await startClusterEnv();
  c = await env.cluster({ env: { RELAY_RATE_LIMITS: "off" } });
  depositor = newWallet();
  await c.instances[0]!.chain.fund(depositor, 100_000_000, USDC);
});
afterAll(async () => {
  await env?.close();
});

const otherThan = (x: Instance): Instance => c.instances.find((y) => y !== x)!;
const deposit = (via: Instance, amount: number) => via.chain.deposit(depositor, Uint8Array.from(randomPrecommitment()), amount, USDC);

/** The pool's leaves in the database: how many rows, and the indexes below `n` that have none. */
async function storedLeaves(n: number): Promise<{ rows: number; missing: number[] }> {
  const rows = await c.query<{ leaf_index: string }>(
    `SELECT l.leaf_index::text AS leaf_index FROM tree_leaves l JOIN pools p ON p.id = l.pool_id WHERE p.network = 'mainnet' AND p.mint = $1`,
    [USDC],
  );
  const have = new Set(rows.map((r) => Number(r.leaf_index)));
  return { rows: rows.length, missing: Array.from({ length: n }, (_, i) => i).filter((i) => !have.has(i)) };
}

/** Every running instance's get_merkle answers the chain's root and nextIndex, and the database holds each leaf once. */
async function everyTreeIsTheChains(): Promise<void> {
  const chain = await env.chainTree(USDC);
  for (const x of c.instances.filter((i) => i.running)) {
    await waitFor(
      `${x.name}'s tree at the chain's (nextIndex ${chain.nextIndex})`,
      async () => JSON.stringify(await x.merkle(USDC)) === JSON.stringify(chain),
      15_000,
    );
  }
  // Leaves are unique per pool and index: as many rows as the chain has leaves means none lost, none twice.
  // The follower answers from its tree as it commits the append: the row is there a moment later at most.
  const t0 = Date.now();
  let stored = await storedLeaves(chain.nextIndex);
  while (stored.rows !== chain.nextIndex && Date.now() - t0 < 5_000) {
    await new Promise((r) => setTimeout(r, 100));
    stored = await storedLeaves(chain.nextIndex);
  }
  expect(stored).toEqual({ rows: chain.nextIndex, missing: [] });
}

describe("the chain follower", () => {
  // A test that failed half-way leaves no instance down for the next.
  beforeEach(async () => {
    for (const x of c.instances) if (!x.running) await x.start();
  });

  it("is one instance: a live lease on mainnet held by one of the two, and both Health pages list both instances and name it", async () => {
    const f = await c.waitForFollower();
    expect(c.instances).toContain(f.instance);
    expect(f.epoch).toBeGreaterThanOrEqual(1);
    const leases = await c.query<{ network: string }>("SELECT network FROM follower_leases WHERE lease_until > now()");
    expect(leases.map((l) => l.network)).toEqual(["mainnet"]);
    // Each instance's Health page lists both instances and names the same follower.
    for (const x of c.instances) {
      const health = await x.admin<AdminHealth>("/health");
      expect(health.status).toBe(200);
      const cluster = health.body.cluster;
      expect(cluster.engine).toBe("postgres");
      expect(cluster.instances.map((i) => i.pid).sort()).toEqual(c.instances.map((i) => i.pid).sort());
      expect(cluster.instances.find((i) => i.self)?.pid).toBe(x.pid);
      expect(cluster.instances.filter((i) => i.follows.includes("mainnet")).map((i) => i.pid)).toEqual([f.instance.pid]);
      expect(cluster.leases).toEqual([expect.objectContaining({ network: "mainnet", holder: f.holder, epoch: f.epoch })]);
    }
  });

  it("killed with SIGKILL while deposits stream, is replaced by the other within 10 s, and every deposit is in the survivor's tree with the chain's root", async () => {
    const first = await c.waitForFollower();
    const leader = first.instance;
    const survivor = otherThan(leader);

    const indexed: number[] = [];
    let killedAt = 0;
    let killing: Promise<void> = Promise.resolve();
    for (let i = 0; i < 10; i++) {
      if (i === 3) {
        // A deposit in flight while the follower dies: it waits on the survivor's get_merkle.
        killedAt = Date.now();
        killing = leader.kill9();
      }
      const d = await deposit(survivor, 1_000 + i);
      expect(d.status).toBe("indexed");
      indexed.push(d.leafIndex!);
      if (i === 3) {
        await killing;
        const next = await c.waitForFollower({ not: leader, timeoutMs: 15_000 });
        expect(next.instance).toBe(survivor);
        expect(next.epoch).toBeGreaterThan(first.epoch);
        // The lease is taken within 10 s of the kill (it was last renewed at most LEASE_MS before).
        expect(Date.now() - killedAt).toBeLessThanOrEqual(10_000);
      }
    }
    expect(new Set(indexed).size).toBe(10);
    await everyTreeIsTheChains();

    // The killed instance comes back as a reader of the same tree.
    await leader.start();
    await everyTreeIsTheChains();
    expect((await c.follower())?.instance).toBe(survivor);
  });

  it("paused (SIGSTOP) past its lease, is replaced; resumed, its tree writes are refused (it says it was deposed) and no leaf is duplicated", async () => {
    const first = await c.waitForFollower();
    const paused = first.instance;
    const other = otherThan(paused);
    const from = paused.currentOutput().length;

    paused.pause();
    const pausedAt = Date.now();
    // Deposits while it is frozen: the other must take the lease to index them.
    for (let i = 0; i < 3; i++) expect((await deposit(other, 2_000 + i)).status).toBe("indexed");
    const next = await c.waitForFollower({ not: paused });
    expect(next.instance).toBe(other);
    expect(next.epoch).toBeGreaterThan(first.epoch);
    // The pause outlasts the lease by a margin, whatever the deposits took.
    const left = LEASE_MS + 2_000 - (Date.now() - pausedAt);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
    // One more deposit the paused follower's subscription will hear of the moment it runs again.
    expect((await deposit(other, 2_100)).status).toBe("indexed");

    paused.resume();
    await waitFor(
      `${paused.name} to log that it lost the lease`,
      async () => new RegExp(`follower: deposed on mainnet \\(epoch ${first.epoch}\\)`).test(paused.currentOutput().slice(from)),
      15_000,
    );
    // It stays a reader: the lease is still the other's, under the same epoch.
    const after = await c.follower();
    expect(after?.instance).toBe(other);
    expect(after?.epoch).toBe(next.epoch);

    // More deposits, read through the resumed instance: it serves the tree the follower writes.
    for (let i = 0; i < 3; i++) expect((await deposit(paused, 3_000 + i)).status).toBe("indexed");
    await everyTreeIsTheChains();
  });
});
