/**
 * A real PostgreSQL server for tests (issue 27: never a mock): Debian's `postgresql` binaries,
 * a fresh cluster in a temp dir, listening on 127.0.0.1 on a free port; stop() ends the server
 * and removes the dir. A test run shares one (tests/support/global-postgres.ts, reached through
 * sharedPostgres() in pg-stores.ts) and each file makes its own databases on it; a test that
 * pauses or stops the server starts its own here.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

/** A server to make databases on: a test's own, or the run's shared one. */
export interface PostgresServer {
  /** The `postgres` database, as the superuser `postgres` (no password: trust on 127.0.0.1). */
  url: string;
  host: string;
  port: number;
  /** Creates an empty database and answers its URL. */
  createDatabase(name?: string): Promise<string>;
}

export interface TestPostgres extends PostgresServer {
  /** The server's process id (the postmaster): a test can SIGSTOP it to make the database hang. */
  pid: number;
  /** Stops (SIGSTOP) the server and its backends, so the database hangs instead of refusing; resume() lets it go on. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

const POSTGRES_ROOT = "/usr/lib/postgresql";

/** The newest installed server's bin dir (Debian keeps one per major version). */
function binDir(): string {
  const versions = existsSync(POSTGRES_ROOT)
    ? readdirSync(POSTGRES_ROOT)
        .filter((v) => existsSync(path.join(POSTGRES_ROOT, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(`no PostgreSQL server binaries under ${POSTGRES_ROOT}/*/bin (initdb, postgres): install them with apt-get install -y postgresql`);
  }
  return path.join(POSTGRES_ROOT, versions[0]!, "bin");
}

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` OS user the Debian package creates. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    throw new Error("running as root, and there is no `postgres` user to run the server as: install it with apt-get install -y postgresql");
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Keeps the last few KiB a process printed, for an error message that says why it stopped. */
function tail(child: ChildProcess): () => string {
  let out = "";
  const keep = (chunk: Buffer): void => {
    out = (out + chunk.toString("utf8")).slice(-8192);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return () => out.trim();
}

/** The processes whose parent is `pid` (the postmaster's backends and workers), from /proc. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 (ppid) follows the command name, which is in parentheses and may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/**
 * Databases on the server at host:port; dropDatabases() drops the ones made here, so a file
 * leaves the shared server as it found it.
 */
export function postgresAt(host: string, port: number): PostgresServer & { dropDatabases(): Promise<void> } {
  const url = `postgres://postgres@${host}:${port}/postgres`;
  const made: string[] = [];
  const admin = async <T>(run: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  };
  return {
    url,
    host,
    port,
    async createDatabase(name = `t_${randomBytes(6).toString("hex")}`) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name}: lower-case letters, digits and _ only`);
      // template0, never template1: CREATE DATABASE refuses a template someone is connected to, and
      // on the shared server another file's connection may be anywhere.
      await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE template0`));
      made.push(name);
      return `postgres://postgres@${host}:${port}/${name}`;
    },
    async dropDatabases() {
      const names = made.splice(0);
      if (names.length === 0) return;
      // FORCE: a pool the test left open must not keep the database (and its disk) for the rest of the run.
      await admin(async (c) => {
        for (const name of names) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      });
    },
  };
}

export async function startPostgres(opts: { maxConnections?: number; durable?: boolean } = {}): Promise<TestPostgres> {
  const bin = binDir();
  const user = serverUser();
  const dir = mkdtempSync(path.join(tmpdir(), "relay-pg-"));
  const data = path.join(dir, "data");
  if (user) chownSync(dir, user.uid, user.gid);
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  try {
    // Asynchronous: the shared server starts in vitest's main process, whose event loop serves the workers.
    await promisify(execFile)(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"], {
      ...as,
      cwd: dir,
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (e as { stderr?: string | Buffer }).stderr?.toString().trim();
    throw new Error(`initdb failed: ${stderr || (e as Error).message}`, { cause: e });
  }

  const host = "127.0.0.1";
  const port = await freePort();
  // Durability is not under test here: fsync off and asynchronous commits keep a test's many small transactions fast.
  // `durable` (the benchmarks) runs it as operators must (docs/scale-out.md): every commit flushed to disk.
  const durability = opts.durable
    ? ["fsync=on", "synchronous_commit=on", "full_page_writes=on"]
    : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"];
  const settings = [
    `listen_addresses=${host}`,
    `port=${port}`,
    `unix_socket_directories=${dir}`,
    ...durability,
    `max_connections=${opts.maxConnections ?? 100}`,
    "shared_buffers=32MB",
    "log_min_messages=warning",
  ];
  const child = spawn(path.join(bin, "postgres"), ["-D", data, ...settings.flatMap((s) => ["-c", s])], { ...as, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  const output = tail(child);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once("exit", () => {
      exited = true;
      resolve();
    });
  });
  // A test process that dies must not leave a server behind.
  const killOnExit = (): void => {
    if (!exited) child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);

  const stop = async (): Promise<void> => {
    process.removeListener("exit", killOnExit);
    if (!exited) {
      // A stopped (SIGSTOP) server must run again to hear the fast-shutdown request.
      child.kill("SIGCONT");
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exit;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const url = `postgres://postgres@${host}:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`postgres exited during start-up: ${output()}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      break;
    } catch (e) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`postgres did not accept connections within 30 s: ${(e as Error).message}; ${output()}`, { cause: e });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const signalAll = (signal: NodeJS.Signals): void => {
    for (const pid of [child.pid!, ...childrenOf(child.pid!)]) {
      try {
        process.kill(pid, signal);
      } catch {
        // A backend that ended meanwhile.
      }
    }
  };

  const { createDatabase } = postgresAt(host, port);
  return { url, host, port, pid: child.pid!, pause: () => signalAll("SIGSTOP"), resume: () => signalAll("SIGCONT"), createDatabase, stop };
}
