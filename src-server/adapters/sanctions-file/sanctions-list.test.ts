import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync, renameSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SanctionsOverride, SanctionsOverrideChange, SanctionsStore, SanctionsVersionRecord } from "../../ports/sanctions";
import { SanctionsOverrides } from "../../services/sanctions-overrides";
import { FileListSource } from "./file-source";
import { ReloadingSanctionsList } from "./sanctions-list";
import { UrlListSource } from "./url-source";

const A = "FuCC7GoYwt5TsNTjWL23Xx9UKCvC18chjMEFPL3vJDCC";
const B = "42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi";
const C = "So11111111111111111111111111111111111111112";

/** The store's contract in memory (the SQL one is exercised by the HTTP tests). */
class MemoryStore implements SanctionsStore {
  readonly map = new Map<string, SanctionsOverride>();
  readonly log: SanctionsOverrideChange[] = [];
  readonly versions: SanctionsVersionRecord[] = [];
  async overrides(): Promise<SanctionsOverride[]> {
    return [...this.map.values()];
  }
  async putOverride(o: SanctionsOverride): Promise<void> {
    this.map.set(o.address, o);
    this.log.push({ address: o.address, change: o.action, reason: o.reason, at: o.createdAt });
  }
  async clearOverride(address: string, reason: string, at: number): Promise<boolean> {
    if (!this.map.delete(address)) return false;
    this.log.push({ address, change: "clear", reason, at });
    return true;
  }
  async history(): Promise<SanctionsOverrideChange[]> {
    return this.log;
  }
  async recordVersion(v: SanctionsVersionRecord): Promise<void> {
    this.versions.push(v);
  }
}

let dir: string;
const lists: ReloadingSanctionsList[] = [];
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sanctions-"));
});
afterEach(() => {
  for (const l of lists.splice(0)) l.stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const make = (source: FileListSource | UrlListSource, store = new MemoryStore()): { list: ReloadingSanctionsList; store: MemoryStore; lines: string[] } => {
  const lines: string[] = [];
  const list = new ReloadingSanctionsList({ source, store, intervalMs: 3_600_000, log: (l) => lines.push(l) });
  lists.push(list);
  return { list, store, lines };
};

describe("ReloadingSanctionsList over a file", () => {
  it("loads the file, answers with its version, and records the version", async () => {
    const file = path.join(dir, "a.txt");
    writeFileSync(file, `# test\n${A}\n`);
    const { list, store } = make(new FileListSource(file, 20));
    await list.start();
    const v = list.check(A);
    expect(v.listed).toBe(true);
    expect(v.listVersion).toMatch(/^[0-9a-f]{16}$/);
    expect(list.check(B)).toEqual({ listed: false, listVersion: v.listVersion });
    expect(list.status()).toMatchObject({
      kind: "file",
      source: file,
      count: 1,
      baseCount: 1,
      lastError: null,
      contentSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(store.versions).toEqual([expect.objectContaining({ version: v.listVersion, baseVersion: v.listVersion, source: file, count: 1 })]);
  });

  it("reloads a changed file on the next poll (also when replaced by rename), and the same set keeps its version", async () => {
    const file = path.join(dir, "b.txt");
    writeFileSync(file, `${A}\n`);
    const { list } = make(new FileListSource(file, 20));
    await list.start();
    const v1 = list.check(A).listVersion;
    writeFileSync(file, `${A}\n${B}\n`);
    await list.refresh();
    expect(list.check(B).listed).toBe(true);
    const v2 = list.check(B).listVersion;
    expect(v2).not.toBe(v1);
    writeFileSync(path.join(dir, "b.tmp"), `# reordered, same set\n${B}\n${A}\n`);
    renameSync(path.join(dir, "b.tmp"), file);
    await list.refresh();
    expect(list.check(A).listVersion).toBe(v2);
  });

  it("keeps the last good version when the file turns bad or disappears, and says why", async () => {
    const file = path.join(dir, "c.txt");
    writeFileSync(file, `${A}\n`);
    const { list, lines } = make(new FileListSource(file, 20));
    await list.start();
    const good = list.check(A).listVersion;
    writeFileSync(file, `${A}\n0xdeadbeef\n`);
    await list.refresh();
    expect(list.check(A)).toEqual({ listed: true, listVersion: good });
    expect(list.status().lastError).toMatch(/line 2: not a Solana address.*keeping version/);
    writeFileSync(file, "");
    await list.refresh();
    expect(list.status().lastError).toMatch(/empty/);
    rmSync(file);
    await list.refresh();
    expect(list.status().lastError).toMatch(/ENOENT/);
    expect(list.check(A).listVersion).toBe(good);
    writeFileSync(file, `${C}\n`);
    await list.refresh();
    expect(list.status().lastError).toBeNull();
    expect(list.check(C).listed).toBe(true);
    expect(list.check(A).listed).toBe(false);
    expect(lines.filter((l) => /ENOENT/.test(l))).toHaveLength(1);
  });

  it("does not read a file that is still being written (debounce)", async () => {
    const file = path.join(dir, "d.txt");
    writeFileSync(file, `${A}\n`);
    const source = new FileListSource(file, 150);
    const { list } = make(source);
    await list.start();
    writeFileSync(file, `${A}\n${B.slice(0, 10)}`); // half an entry
    const polled = list.refresh();
    setTimeout(() => writeFileSync(file, `${A}\n${B}\n`), 50); // ... finished during the settle time
    await polled;
    expect(list.status().lastError).toBeNull(); // no verdict on the half-written file
    await list.refresh();
    expect(list.check(B).listed).toBe(true);
  });

  it("throws on check while no list was ever loaded", async () => {
    const { list } = make(new FileListSource(path.join(dir, "missing.txt"), 5));
    await list.start();
    expect(() => list.check(A)).toThrow(/no sanctions list loaded.*ENOENT/);
    expect(list.status()).toMatchObject({ version: null, count: 0 });
  });
});

describe("operator overrides", () => {
  it("apply at once on top of the list, change the effective version, need a reason, and clear back", async () => {
    const file = path.join(dir, "o.txt");
    writeFileSync(file, `${A}\n${B}\n`);
    const { list, store } = make(new FileListSource(file, 5));
    await list.start();
    const base = list.check(A).listVersion;
    const ops = new SanctionsOverrides(store, () => list.reloadOverrides());

    expect(await ops.add(C, "x")).toMatchObject({ ok: false, error: { kind: "InvalidReason" } });
    expect(await ops.add("nope", "a good reason")).toMatchObject({ ok: false, error: { kind: "InvalidAddress" } });
    expect(await ops.add(C, "two lines\nof reason")).toMatchObject({ ok: false, error: { kind: "InvalidReason" } });

    expect((await ops.add(C, "  case #42: linked to a listed exchange  ")).ok).toBe(true);
    expect(store.map.get(C)?.reason).toBe("case #42: linked to a listed exchange");
    const v1 = list.check(C);
    expect(v1.listed).toBe(true);
    expect(v1.listVersion).toMatch(new RegExp(`^${base}\\+[0-9a-f]{8}$`));
    expect((await ops.remove(B, "confirmed false positive, ticket 7")).ok).toBe(true);
    const v2 = list.check(B);
    expect(v2.listed).toBe(false);
    expect(v2.listVersion).not.toBe(v1.listVersion);
    expect(list.status()).toMatchObject({ count: 2, baseCount: 2, overrides: { add: 1, remove: 1 } });

    expect(await ops.clear(B, "ticket 7 reopened")).toEqual({ ok: true, value: true });
    expect(await ops.clear(B, "again")).toEqual({ ok: true, value: false });
    expect(list.check(B).listed).toBe(true);
    expect(await ops.clear(C, "case closed")).toEqual({ ok: true, value: true });
    expect(list.check(A).listVersion).toBe(base);
    expect(store.log.map((c) => c.change)).toEqual(["add", "remove", "clear", "clear"]);
    // base, +C, +C -B, back to +C, back to base: three distinct versions, each recorded when it came into force.
    expect(new Set(store.versions.map((v) => v.version)).size).toBe(3);
    expect(store.versions.map((v) => v.version)).toHaveLength(5);
  });

  it("are read from the store at start", async () => {
    const file = path.join(dir, "p.txt");
    writeFileSync(file, `${A}\n`);
    const store = new MemoryStore();
    await store.putOverride({ address: A, action: "remove", reason: "false positive", createdAt: 1 });
    const { list } = make(new FileListSource(file, 5), store);
    await list.start();
    expect(list.check(A).listed).toBe(false);
    expect(list.check(A).listVersion).toContain("+");
  });
});

describe("ReloadingSanctionsList over a URL (plain http on 127.0.0.1)", () => {
  let server: Server;
  let base: string;
  let body = `${A}\n`;
  let status = 200;
  let delayMs = 0;
  const seen: { ifNoneMatch: string | undefined }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ ifNoneMatch: req.headers["if-none-match"] });
      const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
      setTimeout(() => {
        if (status !== 200) return void res.writeHead(status).end("down");
        if (req.headers["if-none-match"] === etag) return void res.writeHead(304).end();
        res.writeHead(200, { "content-type": "text/plain", etag }).end(body);
      }, delayMs);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("fetches, revalidates with ETag (304 keeps the version), follows a change, and keeps the last good version on failure", async () => {
    const cacheFile = path.join(dir, "url1", "cache.json");
    const { list } = make(new UrlListSource(`${base}/sol.txt`, { timeoutMs: 1000, cacheFile }));
    await list.start();
    const v1 = list.check(A).listVersion;
    expect(list.status()).toMatchObject({ kind: "url", source: `${base}/…`, count: 1 });

    seen.length = 0;
    await list.refresh();
    expect(seen[0]?.ifNoneMatch).toBeTruthy();
    expect(list.check(A).listVersion).toBe(v1);

    body = `${A}\n${B}\n`;
    await list.refresh();
    expect(list.check(B).listed).toBe(true);
    const v2 = list.check(B).listVersion;

    status = 500;
    await list.refresh();
    expect(list.status().lastError).toMatch(/HTTP 500/);
    expect(list.check(B)).toEqual({ listed: true, listVersion: v2 });

    status = 200;
    delayMs = 400;
    const slow = make(new UrlListSource(`${base}/sol.txt`, { timeoutMs: 100, cacheFile: path.join(dir, "url-slow", "c.json") }));
    await slow.list.start();
    expect(slow.list.status().lastError).toMatch(/no answer within 100 ms/);
    expect(() => slow.list.check(A)).toThrow(/no sanctions list loaded/);
    delayMs = 0;

    body = "garbage that is not a list\n";
    await list.refresh();
    expect(list.status().lastError).toMatch(/line 1/);
    expect(list.check(B).listVersion).toBe(v2);
    body = `${A}\n${B}\n`;
    await list.refresh();
    expect(list.status().lastError).toBeNull();
    expect(list.check(B).listVersion).toBe(v2);

    // A restart while the server is down starts from the cached copy.
    status = 503;
    const again = make(new UrlListSource(`${base}/sol.txt`, { timeoutMs: 1000, cacheFile }));
    await again.list.start();
    expect(again.list.check(B)).toEqual({ listed: true, listVersion: v2 });
    expect(again.list.status().lastError).toMatch(/HTTP 503/);
    status = 200;
  });

  it("fails closed when the URL never answered: no list, checks throw", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { list } = make(new UrlListSource(`http://127.0.0.1:${port}/sol.txt`, { timeoutMs: 1000, cacheFile: path.join(dir, "url2", "c.json") }));
    await list.start();
    expect(() => list.check(A)).toThrow(/no sanctions list loaded/);
    expect(list.status().lastError).toMatch(/ECONNREFUSED/);
  });

  it("refuses a non-loopback http URL outright, and shows only the origin", () => {
    expect(() => new UrlListSource("http://example.com/sol.txt", { timeoutMs: 1000, cacheFile: "x" })).toThrow(/https/);
    expect(new UrlListSource("https://u:secret@example.com/sol.txt?key=1", { timeoutMs: 1000, cacheFile: "x" }).location).toBe("https://example.com/…");
  });
});
