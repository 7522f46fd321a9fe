/**
 * Relay instances on one PostgreSQL (issue 27, docs/scale-out.md), as operators run them: a
 * fresh database on the run's PostgreSQL server and one local validator per test file, and N relay processes started
 * exactly as `npm start` starts them, each on its own data dir but with the same config file
 * (mainnet bound to the validator, devnet off, `storage: { kind: "postgres", url }`), the same
 * relayer key file, the same compliance key and the same operator token. Instances can be
 * restarted on their data dir, killed with SIGKILL, paused with SIGSTOP and resumed.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Keypair, PublicKey } from "@solana/web3.js";
import pg from "pg";
import { currentRoot, decodeTreeAccount, poolTreeAddress } from "../../src-shared/pool-program";
import type { Network } from "../../src-shared/networks";
import { waitFor } from "./compliance";
import { localnetTestChain, solanaRelayConfig, startLocalnet, type Localnet } from "./localnet";
import { sharedPostgres, type SharedPostgres } from "./pg-stores";
import type { PostgresServer } from "./postgres";
import { startRelay, type RelayProcess } from "./relay-process";
import type { TestChain } from "./test-chain";
import { get, post, type HttpAnswer } from "./wallet";

export const OPERATOR_TOKEN = "cluster-test-operator-token-0123456789";
export const OPERATOR_AUTH = { authorization: `Bearer ${OPERATOR_TOKEN}` };

/** The follower lease's length (DESIGN §12, docs/scale-out.md): a dead follower is replaced within twice this. */
export const LEASE_MS = 5_000;

export interface Instance {
  /** "A", "B", …: for messages. */
  readonly name: string;
  readonly dataDir: string;
  /** The running process's URL (it changes on restart: port 0). */
  readonly url: string;
  /** The running process's pid; null when stopped or killed. */
  readonly pid: number | null;
  readonly running: boolean;
  /** The wallet-side view of the chain, waiting on this instance's get_merkle. */
  readonly chain: TestChain;
  /** Everything every process on this data dir printed, restarts included. */
  output(): string;
  /** What the current (or last) process printed since it started. */
  currentOutput(): string;
  start(): Promise<void>;
  /** SIGTERM, then start again on the same data dir. */
  restart(): Promise<void>;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for the exit. */
  kill9(): Promise<void>;
  /** SIGSTOP: the process stays, frozen (a GC stall, a VM migration). */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** GET /admin/<p> with the operator token. */
  admin<T = unknown>(p: string): Promise<{ status: number; body: T }>;
  post(p: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  get(p: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  /** POST /get_merkle of a pool: its root bytes and nextIndex (null when it does not answer 200). */
  merkle(mint: string, network?: Network): Promise<{ root: number[]; nextIndex: number } | null>;
}

export interface FollowerInfo {
  instance: Instance;
  holder: string;
  epoch: number;
}

export interface Cluster {
  /** The database the instances share (the real one, even when they go through a proxy). */
  readonly dbUrl: string;
  readonly configFile: string;
  readonly instances: Instance[];
  /** A query straight to the shared database, for what a test checks there. */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /**
   * Which instance follows `network` now: the holder of its live follower lease. The lease is the
   * election's ground truth (a reader never writes the tree, docs/scale-out.md); one function, so
   * it can read the console's Health answer instead once that carries the leases.
   */
  follower(network?: Network): Promise<FollowerInfo | null>;
  /** Waits until a live instance other than `not` holds the lease; answers it and how long it took. */
  waitForFollower(opts?: { network?: Network; not?: Instance; timeoutMs?: number }): Promise<FollowerInfo & { waitedMs: number }>;
  /** Stops every instance still running and removes their data dirs (the database is dropped at the file's end). */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Instances (default 2). */
  instances?: number;
  /** Merged into the config file (deeply, objects only). */
  config?: Record<string, unknown>;
  /** Extra RELAY_* variables for every instance. */
  env?: Record<string, string>;
  /** Start the instances at the same moment (default: one after the other). */
  together?: boolean;
  /** Start nothing yet (the test calls instance.start()). */
  deferStart?: boolean;
  /** What the instances are given for the fresh database's URL (a proxy's: TcpProxy.through). */
  through?: (dbUrl: string) => string;
}

export interface ClusterEnv {
  /** The run's server: a test that takes the database away does it through a TcpProxy, never by stopping it. */
  pg: PostgresServer;
  net: Localnet;
  /** A fresh database on the file's server, with N instances on it. */
  cluster(opts?: ClusterOptions): Promise<Cluster>;
  /** The chain's tree of a pool: its current root and nextIndex (the tree account, as the program keeps it). */
  chainTree(mint: string): Promise<{ root: number[]; nextIndex: number }>;
  close(): Promise<void>;
}

/** The run's PostgreSQL server and one local validator for a test file (beforeAll); close() in afterAll. */
export async function startClusterEnv(opts: { slotMs?: number } = {}): Promise<ClusterEnv> {
  const [server, net]: [SharedPostgres, Localnet] = await Promise.all([sharedPostgres(), startLocalnet({ slotMs: opts.slotMs })]);
  const clusters: Cluster[] = [];
  return {
    pg: server,
    net,
    cluster: async (o = {}) => {
      const c = await startCluster(server, net, o);
      clusters.push(c);
      return c;
    },
    chainTree: (mint) => chainTree(net, mint),
    close: async () => {
      await Promise.allSettled(clusters.map((c) => c.stop()));
      await Promise.allSettled([server.release(), net.close()]);
    },
  };
}

export async function chainTree(net: Localnet, mint: string): Promise<{ root: number[]; nextIndex: number }> {
  const info = await net.connection.getAccountInfo(new PublicKey(poolTreeAddress(net.programId, mint)), "confirmed");
  if (!info) throw new Error(`no tree account for ${mint}`);
  const t = decodeTreeAccount(Uint8Array.from(info.data));
  if (!t.ok) throw new Error(t.error);
  return { root: Array.from(currentRoot(t.value)), nextIndex: t.value.nextIndex };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function merge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(extra)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k], v) : v;
  return out;
}

/**
 * The config every instance of a cluster reads: mainnet on the validator, devnet off, PostgreSQL
 * storage at `dbUrl` (null: no storage key, for RELAY_DATABASE_URL to set it).
 */
export function clusterConfig(net: Localnet, dbUrl: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return merge(
    merge(solanaRelayConfig(net), {
      // A sandbox network is refused on PostgreSQL storage (docs/decisions.md).
      networks: { devnet: { enabled: false } },
      ...(dbUrl === null ? {} : { storage: { kind: "postgres", url: dbUrl } }),
      // One verifier worker each: two relays and the test share two cores.
      verifier: { threads: 1 },
    }),
    extra,
  );
}

/** Writes the compliance key every instance must share (docs/scale-out.md) into a data dir, as FileSecretStore keeps it. */
function writeComplianceKey(dataDir: string, secretKey: Uint8Array): void {
  const dir = path.join(dataDir, "keys");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, "compliance.json");
  writeFileSync(file, JSON.stringify(Array.from(secretKey)), { mode: 0o600 });
  chmodSync(file, 0o600);
}

async function startCluster(server: PostgresServer, net: Localnet, opts: ClusterOptions): Promise<Cluster> {
  const realDbUrl = await server.createDatabase();
  const dbUrl = opts.through ? opts.through(realDbUrl) : realDbUrl;
  const dir = mkdtempSync(path.join(tmpdir(), "relay-cluster-"));
  const configFile = path.join(dir, "relay.json");
  writeFileSync(configFile, JSON.stringify(clusterConfig(net, dbUrl, opts.config)));
  const env = { RELAY_CONFIG: configFile, RELAY_OPERATOR_TOKEN: OPERATOR_TOKEN, ...opts.env };
  const compliance = Keypair.generate().secretKey;
  const db = new pg.Pool({ connectionString: realDbUrl, max: 2 });

  const instances = Array.from({ length: opts.instances ?? 2 }, (_, i) => {
    const dataDir = path.join(dir, `instance-${i}`);
    writeComplianceKey(dataDir, compliance);
    return makeInstance(String.fromCharCode(65 + i), dataDir, env, net);
  });

  const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> => (await db.query<R>(sql, params)).rows;

  const follower = async (network: Network = "mainnet"): Promise<FollowerInfo | null> => {
    const rows = await query<{ holder: string; epoch: string; pid: number | null }>(
      `SELECT l.holder, l.epoch::text AS epoch, i.pid FROM follower_leases l LEFT JOIN instances i ON i.id = l.holder
       WHERE l.network = $1 AND l.lease_until > now()`,
      [network],
    );
    const row = rows[0];
    if (!row) return null;
    // The instance id starts host:pid (coordination.ts) when the instances row is gone already.
    const pid = row.pid ?? Number(/^[^:]*:(\d+):/.exec(row.holder)?.[1] ?? NaN);
    const instance = instances.find((x) => x.pid === pid);
    return instance ? { instance, holder: row.holder, epoch: Number(row.epoch) } : null;
  };

  const stop = async (): Promise<void> => {
    await Promise.allSettled(
      instances.map(async (x) => {
        x.resume();
        if (x.running) await x.stop();
      }),
    );
    await db.end().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };

  if (!opts.deferStart) {
    try {
      if (opts.together) await Promise.all(instances.map((x) => x.start()));
      else for (const x of instances) await x.start();
    } catch (e) {
      await stop();
      throw e;
    }
  }

  return {
    dbUrl: realDbUrl,
    configFile,
    instances,
    query,
    follower,
    waitForFollower: async ({ network = "mainnet", not, timeoutMs = 15_000 } = {}) => {
      const t0 = Date.now();
      const f = await waitFor(
        `a follower of ${network}${not ? ` other than ${not.name}` : ""}`,
        async () => {
          const x = await follower(network);
          return x && x.instance !== not && x.instance.running ? x : null;
        },
        timeoutMs,
        50,
      );
      return { ...f, waitedMs: Date.now() - t0 };
    },
    stop,
  };
}

function makeInstance(name: string, dataDir: string, env: Record<string, string>, net: Localnet): Instance {
  let proc: RelayProcess | null = null;
  let alive = false;
  let previous = "";
  const current = (): RelayProcess => {
    if (!proc) throw new Error(`instance ${name} was never started`);
    return proc;
  };
  const url = (): string => current().url;
  const self: Instance = {
    name,
    dataDir,
    get url() {
      return url();
    },
    get pid() {
      return alive ? (proc?.child.pid ?? null) : null;
    },
    get running() {
      return alive;
    },
    get chain() {
      return localnetTestChain(net, url());
    },
    output: () => previous + (proc?.output() ?? ""),
    currentOutput: () => proc?.output() ?? "",
    start: async () => {
      if (alive) throw new Error(`instance ${name} is running`);
      previous += proc?.output() ?? "";
      proc = await startRelay(env, dataDir);
      alive = true;
      const started = proc;
      started.child.once("exit", () => {
        if (proc === started) alive = false;
      });
    },
    restart: async () => {
      await self.stop();
      await self.start();
    },
    stop: async () => {
      const p = current();
      if (!alive) return p.child.exitCode;
      p.child.kill("SIGCONT");
      const code = await p.stop();
      alive = false;
      return code;
    },
    kill9: async () => {
      const p = current();
      if (!alive) return;
      await p.kill9();
      alive = false;
    },
    pause: () => {
      if (alive) current().child.kill("SIGSTOP");
    },
    resume: () => {
      if (alive) current().child.kill("SIGCONT");
    },
    admin: async <T>(p: string) => {
      const r = await get(`${url()}/admin${p}`, OPERATOR_AUTH);
      return { status: r.status, body: r.json as T };
    },
    post: (p, body, headers) => post(`${url()}${p}`, body, headers),
    get: (p, headers) => get(`${url()}${p}`, headers),
    merkle: async (mint, network = "mainnet") => {
      const r = await post(`${url()}/get_merkle/${mint}/32/${network}`);
      if (r.status !== 200) return null;
      const { root, nextIndex } = (r.json as { json: { root: number[]; nextIndex: number } }).json;
      return { root, nextIndex };
    },
  };
  return self;
}

/** A relay start that must fail: its exit code and everything it printed. */
export async function startMustFail(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  try {
    const r = await startRelay(env);
    await r.stop();
    r.cleanup();
  } catch (e) {
    const m = /^relay exited with (\S+) before listening:\n([\s\S]*)$/.exec((e as Error).message);
    if (m) return { code: m[1] === "null" ? null : Number(m[1]), output: m[2]! };
    throw e;
  }
  throw new Error("the relay started");
}

/**
 * A TCP proxy in front of the database: down() resets every connection through it and refuses
 * new ones (the database gone from the instances' point of view: ECONNRESET, then
 * ECONNREFUSED), up() listens again on the same port.
 */
export interface TcpProxy {
  readonly port: number;
  /** `url` with its host:port replaced by the proxy's. */
  through(url: string): string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = async (): Promise<void> => {
    const s = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      for (const sock of [client, upstream]) {
        sockets.add(sock);
        sock.on("close", () => sockets.delete(sock));
        sock.on("error", () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve());
    });
    const address = s.address();
    port = typeof address === "object" && address ? address.port : port;
    server = s;
  };
  const down = async (): Promise<void> => {
    const s = server;
    server = null;
    for (const sock of sockets) sock.resetAndDestroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    through: (url) => {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    down,
    up: async () => {
      if (!server) await listen();
    },
    close: down,
  };
}

/** The body of POST /login for a wallet, signed over the current time (a replay of it is refused). */
export function loginBody(wallet: { address: string; sign(message: string): string }): Record<string, unknown> {
  const t = Math.floor(Date.now() / 1000);
  return { wallet: wallet.address, signature: wallet.sign(String(t)), message: t };
}

/** A login token from this instance. */
export async function login(instance: Instance, wallet: { address: string; sign(message: string): string }): Promise<string> {
  const r = await instance.post("/login", loginBody(wallet));
  if (r.status !== 200) throw new Error(`login on ${instance.name}: ${r.status} ${r.text}`);
  return (r.json as { id: string }).id;
}
