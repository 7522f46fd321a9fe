import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { redactUrl } from "../../../src-shared/redact-url";
import { checkListUrl } from "../../core/compliance/sanctions";
import type { ListSource, SourceRead } from "./source";

export interface UrlSourceOptions {
  /** Per fetch, headers and body. */
  timeoutMs: number;
  /** The last good copy, kept for the next start (in the data dir). */
  cacheFile: string;
  /** Bodies above this are refused. Default 32 MiB. */
  maxBytes?: number;
  fetch?: typeof fetch;
}

interface CacheFile {
  url: string;
  etag: string | null;
  lastModified: string | null;
  savedAt: number;
  /** base64 of the bytes as fetched. */
  body: string;
}

/**
 * A list served over HTTPS (http only on loopback), fetched with a time-out
 * and conditional headers (ETag / Last-Modified, so an unchanged list costs a
 * 304). The last good copy is cached in the data dir, so a restart while the
 * server is unreachable still has the version that was in force.
 */
export class UrlListSource implements ListSource {
  readonly kind = "url" as const;
  /** For status and logs: the URL without credentials or query. */
  readonly location: string;
  private etag: string | null = null;
  private lastModified: string | null = null;
  private readonly maxBytes: number;
  private readonly fetchImpl: typeof fetch;

  constructor(
    private readonly url: string,
    private readonly opts: UrlSourceOptions,
  ) {
    const checked = checkListUrl(url);
    if (!checked.ok) throw new Error(`sanctions.url ${checked.error}`);
    this.location = redactUrl(url);
    this.maxBytes = opts.maxBytes ?? 32 * 1024 * 1024;
    this.fetchImpl = opts.fetch ?? globalThis.fetch.bind(globalThis);
  }

  cached(): { bytes: Uint8Array; savedAt: number } | null {
    let c: CacheFile;
    try {
      c = JSON.parse(readFileSync(this.opts.cacheFile, "utf8")) as CacheFile;
    } catch {
      return null;
    }
    if (c.url !== this.url || typeof c.body !== "string") return null;
    this.etag = c.etag;
    this.lastModified = c.lastModified;
    return { bytes: Buffer.from(c.body, "base64"), savedAt: c.savedAt };
  }

  async read(): Promise<SourceRead> {
    const headers: Record<string, string> = { accept: "text/plain, application/json;q=0.9, */*;q=0.1" };
    if (this.etag) headers["if-none-match"] = this.etag;
    if (this.lastModified) headers["if-modified-since"] = this.lastModified;
    let res: Response;
    let bytes: Uint8Array;
    try {
      res = await this.fetchImpl(this.url, { headers, signal: AbortSignal.timeout(this.opts.timeoutMs), redirect: "follow" });
      if (res.url && res.url !== this.url) {
        const moved = checkListUrl(res.url);
        if (!moved.ok) return { kind: "error", message: `${this.location} redirected to ${redactUrl(res.url)}, which ${moved.error}` };
      }
      if (res.status === 304) return { kind: "unchanged" };
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => {});
        return { kind: "error", message: `${this.location} answered HTTP ${res.status}` };
      }
      const declared = Number(res.headers.get("content-length") ?? "0");
      if (declared > this.maxBytes) return { kind: "error", message: `${this.location} is ${declared} bytes, above the ${this.maxBytes}-byte limit` };
      bytes = await readCapped(res, this.maxBytes);
    } catch (e) {
      const name = e instanceof Error ? e.name : "";
      if (name === "TimeoutError" || name === "AbortError") return { kind: "error", message: `${this.location}: no answer within ${this.opts.timeoutMs} ms` };
      const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
      const code = typeof cause === "object" && cause !== null && "code" in cause ? `${String((cause as { code: unknown }).code)} ` : "";
      return { kind: "error", message: `${this.location}: ${code}${cause instanceof Error ? cause.message : String(cause)}` };
    }
    const etag = res.headers.get("etag");
    const lastModified = res.headers.get("last-modified");
    return {
      kind: "content",
      bytes,
      commit: () => {
        this.etag = etag;
        this.lastModified = lastModified;
        this.save({ url: this.url, etag, lastModified, savedAt: Date.now(), body: Buffer.from(bytes).toString("base64") });
      },
    };
  }

  private save(c: CacheFile): void {
    try {
      mkdirSync(path.dirname(this.opts.cacheFile), { recursive: true, mode: 0o700 });
      const tmp = `${this.opts.cacheFile}.tmp`;
      writeFileSync(tmp, JSON.stringify(c));
      renameSync(tmp, this.opts.cacheFile);
    } catch {
      // The cache only shortens an outage at the next start; the list in memory is what counts.
    }
  }
}

async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`body above the ${maxBytes}-byte limit`);
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}
