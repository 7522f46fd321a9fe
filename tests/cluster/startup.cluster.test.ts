import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterConfig, login, loginBody, OPERATOR_TOKEN, startClusterEnv, startMustFail, startTcpProxy, type ClusterEnv } from "../support/cluster";
import { waitFor } from "../support/compliance";
import { prepareWithdrawal, testRecipient } from "../support/proofs";
import { USDC } from "../support/sandbox";
import { newWallet } from "../support/wallet";

/**
 * Instances on one PostgreSQL starting: together on an empty database, or on a database that is
 * wrong or unreachable; and the database going away under a running instance (issue 27, "Bad
 * input"; docs/scale-out.md, "What each failure does").
 */
let env: ClusterEnv;

beforeAll(async () => {
  env = await startClusterEnv();
});
afterAll(async () => {
  await env?.close();
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a ? a.port : 0));
    });
  });
}

describe("start-up on one PostgreSQL", () => {
  it("starts two instances at once on an empty database: both listen, the schema is migrated once, and both serve the same keys and tree", async () => {
    const c = await env.cluster({ together: true });
    const [a, b] = c.instances as [NonNullable<(typeof c.instances)[0]>, NonNullable<(typeof c.instances)[1]>];
    expect(a.running && b.running).toBe(true);

    const applied = await c.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    const versions = applied.map((r) => r.version);
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions).size).toBe(versions.length);
    // Each migration was applied by exactly one of the two: the other found it done under the lock.
    for (const v of versions) {
      const lines = [a, b].flatMap((x) => x.output().match(new RegExp(`PostgreSQL migration ${v} [^\\n]*applied`, "g")) ?? []);
      expect(lines, `migration ${v}`).toHaveLength(1);
    }

    const registered = await c.query<{ pid: number }>("SELECT pid FROM instances ORDER BY pid");
    expect(registered.map((r) => r.pid).sort()).toEqual([a.pid, b.pid].sort());

    // The same compliance key and relayer (docs/scale-out.md: copied before start), and the same tree.
    const [ka, kb] = await Promise.all([a.get("/compliance/public_key"), b.get("/compliance/public_key")]);
    expect(ka.status).toBe(200);
    expect(kb.json).toEqual(ka.json);
    const [fa, fb] = await Promise.all([a.get("/fees"), b.get("/fees")]);
    expect((fb.json as { relayers: unknown }).relayers).toEqual((fa.json as { relayers: unknown }).relayers);
    // The follower opens the pools; the other instance adopts them on its next read of the store (every 500 ms).
    const tree = await waitFor("the follower to open the USDC pool", () => a.merkle(USDC));
    const reader = await waitFor("the other instance to adopt the USDC pool", () => b.merkle(USDC), 5_000);
    expect(reader).toEqual(tree);
    await c.stop();
  });
});

describe("a database that is wrong or unreachable at start", () => {
  let configFile: string;
  beforeAll(() => {
    // No storage key: RELAY_DATABASE_URL alone makes it PostgreSQL storage.
    configFile = path.join(env.net.dir, "bad-db.json");
    writeFileSync(configFile, JSON.stringify(clusterConfig(env.net, null)));
  });

  const cases: [string, () => Promise<{ url: string; where: string; cause: RegExp }>][] = [
    [
      "an unknown host",
      async () => ({
        url: "postgres://relay:hunter2-secret@no-such-host.invalid:5432/relay",
        where: "no-such-host.invalid:5432/relay",
        cause: /ENOTFOUND|getaddrinfo|not known|resolve/i,
      }),
    ],
    [
      "a port nothing listens on",
      async () => {
        const port = await freePort();
        return { url: `postgres://relay:hunter2-secret@127.0.0.1:${port}/relay`, where: `127.0.0.1:${port}/relay`, cause: /refused/i };
      },
    ],
    [
      "a user the server does not know",
      async () => ({
        url: `postgres://nobody:hunter2-secret@127.0.0.1:${env.pg.port}/postgres`,
        where: `127.0.0.1:${env.pg.port}/postgres`,
        cause: /role "nobody" does not exist|authentication/i,
      }),
    ],
    [
      "a database that does not exist",
      async () => ({
        url: `postgres://postgres:hunter2-secret@127.0.0.1:${env.pg.port}/no_such_db`,
        where: `127.0.0.1:${env.pg.port}/no_such_db`,
        cause: /database "no_such_db" does not exist/i,
      }),
    ],
  ];

  it.each(cases)("stops the start on %s with one line naming host:port/database and the cause, never the password, and exits non-zero", async (_name, make) => {
    const { url, where, cause } = await make();
    const { code, output } = await startMustFail({ RELAY_CONFIG: configFile, RELAY_DATABASE_URL: url, RELAY_OPERATOR_TOKEN: OPERATOR_TOKEN });
    expect(code, output).not.toBe(0);
    expect(code, output).not.toBeNull();
    const named = output.split("\n").filter((l) => l.includes(where));
    expect(named, output).toHaveLength(1);
    expect(named[0], output).toMatch(cause);
    expect(output).not.toContain("hunter2-secret");
    // One line, not a stack trace.
    expect(output, output).not.toMatch(/^\s+at /m);
  });
});

describe("the database going away under a running instance", () => {
  it("answers 503 with Retry-After while it is gone (/login, /relay, /health) and takes no lock, keeps serving the tree it holds, and recovers on its own", async () => {
    const proxy = await startTcpProxy(env.pg.host, env.pg.port);
    const c = await env.cluster({ instances: 1, through: proxy.through, env: { RELAY_RATE_LIMITS: "off" } });
    try {
      const a = c.instances[0]!;
      const depositor = newWallet();
      await a.chain.fund(depositor, 10_000_000, USDC);
      const token = await login(a, depositor);
      const w = await prepareWithdrawal(a.url, depositor, USDC, { recipient: testRecipient("cluster-db-down"), amount: 1_000_000, chain: a.chain });
      const tree = await a.merkle(USDC);
      expect(tree?.nextIndex).toBeGreaterThan(0);
      // Healthy before the database goes: on a loaded machine a check (the follower's first
      // round, the verifier's boot) may take a moment after the start to turn green.
      let lastDetail = "";
      await waitFor(
        "/health to answer 200 before the database goes away",
        async () => {
          if ((await a.get("/health")).status === 200) return true;
          lastDetail = (await a.get("/health/detail", { authorization: `Bearer ${OPERATOR_TOKEN}` })).text;
          return false;
        },
        20_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; last /health/detail: ${lastDetail}`);
      });

      await proxy.down();

      const l = await a.post("/login", loginBody(newWallet()));
      expect(l.status, l.text).toBe(503);
      expect(l.headers.get("retry-after")).toBe("5");

      const r = await a.post("/relay", w.body, { "x-api-auth": token });
      expect(r.status, r.text).toBe(503);
      expect(r.headers.get("retry-after")).toBe("5");
      // Nothing was sent: the nullifier is unspent on chain, the recipient unpaid.
      expect((await a.post(`/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: w.body.nullifierHash })).json).toEqual({ address: null, json: null });
      expect(await a.chain.balance(w.body.recipient, USDC)).toBe(0n);

      // GET /health answers from a report up to 5 s old.
      await waitFor("/health 503", async () => (await a.get("/health")).status === 503, 15_000);
      // The tree it holds is served from memory.
      expect(await a.merkle(USDC)).toEqual(tree);

      await proxy.up();
      await waitFor("/health 200", async () => (await a.get("/health")).status === 200, 20_000);
      await waitFor("/login 200", async () => (await a.post("/login", loginBody(newWallet()))).status === 200, 10_000);

      // The relay refused while the database was gone took no lock: sent again, it lands.
      const again = await a.post("/relay", w.body, { "x-api-auth": token });
      expect(again.status, again.text).toBe(200);
      expect(await a.chain.balance(w.body.recipient, USDC)).toBe(1_000_000n - w.terms.fee);
    } finally {
      await c.stop();
      await proxy.close();
    }
  });
});
