import { closeSync, fchmodSync, fstatSync, fsync, mkdirSync, openSync, readSync, writeSync, constants as fsc } from "node:fs";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { DATA_DIR_MODE, DATA_FILE_MODE, fsyncDir } from "./snapshot-file";

/** Sub-folder of the data dir that holds the page files. */
export const PAGES_DIR = "pages";
/** Queued bytes above this are written out before the batch ends (a migration can queue hundreds of MiB). */
const FLUSH_BYTES = 8 * 1024 * 1024;
/** Queued writes above this are written out too: a migration's 9-byte records would otherwise queue a million objects. */
const FLUSH_WRITES = 64 * 1024;
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const fsyncAsync = promisify(fsync);

interface Pending {
  name: string;
  offset: number;
  bytes: Uint8Array;
}

/** What readers see of the page files. */
export interface PageReader {
  /** Bytes [offset, offset + length) of `name`; shorter (possibly empty) where the file ends. */
  read(name: string, offset: number, length: number): Uint8Array;
  /** Fills `into` from `offset`; returns how many bytes the file had. */
  readInto(name: string, offset: number, into: Uint8Array): number;
}

/**
 * Bulk data kept beside the SQLite image instead of inside it (tree levels,
 * per-leaf metadata), so neither the wasm heap nor a snapshot has to hold it.
 *
 * Writes reach a page file only through the journal: a batch calls the SQL
 * function `page_put(name, offset, bytes)`, so the journal record that makes
 * the batch durable also carries the bytes, and replay writes them again.
 * A snapshot fsyncs the page files before it lets the journal records that
 * wrote them go. A page file can therefore hold bytes of a batch that was
 * never acknowledged (written, then killed before the journal fsync): the
 * SQL side says how much of each file is committed, and readers trust only
 * that prefix. See docs/decisions.md, "Page files".
 */
export class PageFiles implements PageReader {
  private readonly fds = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private pending: Pending[] = [];
  private pendingBytes = 0;
  private created = false;
  private closed = false;

  private constructor(private readonly dir: string) {}

  static async open(dataDir: string): Promise<PageFiles> {
    const dir = join(dataDir, PAGES_DIR);
    mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
    if (process.platform !== "win32") await chmod(dir, DATA_DIR_MODE);
    return new PageFiles(dir);
  }

  /** The SQL function body: queues the write; `flush` (end of batch) or the queue size writes it. */
  put(name: unknown, offset: unknown, bytes: unknown): number {
    if (typeof name !== "string" || !NAME.test(name)) throw new Error(`page_put: bad page file name ${String(name)}`);
    if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0) throw new Error("page_put: offset must be a non-negative integer");
    if (!(bytes instanceof Uint8Array)) throw new Error("page_put: bytes must be a blob");
    // sql.js hands a function a fresh copy of a blob argument; anything that looks like a view (of wasm memory) is copied.
    const own = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length;
    this.pending.push({ name, offset, bytes: own ? bytes : bytes.slice() });
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= FLUSH_BYTES || this.pending.length >= FLUSH_WRITES) this.flush();
    return bytes.length;
  }

  /** Writes queued bytes to the files (page cache; `sync` makes them durable). Contiguous writes to one file go out as one. */
  flush(): void {
    const queue = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    let i = 0;
    while (i < queue.length) {
      const first = queue[i]!;
      let end = first.offset + first.bytes.length;
      let j = i + 1;
      while (j < queue.length && queue[j]!.name === first.name && queue[j]!.offset === end) end += queue[j++]!.bytes.length;
      const fd = this.fd(first.name);
      if (j === i + 1) writeAll(fd, first.bytes, first.offset);
      else {
        const run = new Uint8Array(end - first.offset);
        for (let k = i, at = 0; k < j; at += queue[k]!.bytes.length, k++) run.set(queue[k]!.bytes, at);
        writeAll(fd, run, first.offset);
      }
      this.dirty.add(first.name);
      i = j;
    }
  }

  /** Drops queued writes of a batch that rolled back. */
  discard(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** Makes every write so far durable; the fsyncs run off the event loop. */
  async sync(fsyncOn: boolean): Promise<void> {
    this.flush();
    const names = [...this.dirty];
    this.dirty.clear();
    const created = this.created;
    this.created = false;
    if (!fsyncOn) return;
    try {
      for (const name of names) {
        const fd = this.fds.get(name);
        if (fd !== undefined) await fsyncAsync(fd);
      }
      if (created) {
        await fsyncDir(this.dir);
        await fsyncDir(join(this.dir, ".."));
      }
    } catch (err) {
      for (const name of names) this.dirty.add(name);
      this.created ||= created;
      throw err;
    }
  }

  read(name: string, offset: number, length: number): Uint8Array {
    const out = new Uint8Array(length);
    const n = this.readInto(name, offset, out);
    return n === length ? out : out.subarray(0, n);
  }

  readInto(name: string, offset: number, into: Uint8Array): number {
    if (this.pending.length > 0) this.flush();
    const fd = this.fd(name, false);
    if (fd === null) return 0;
    let done = 0;
    while (done < into.length) {
      const n = readSync(fd, into, done, into.length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.flush();
    } finally {
      for (const fd of this.fds.values()) closeSync(fd);
      this.fds.clear();
    }
  }

  private fd(name: string): number;
  private fd(name: string, create: false): number | null;
  private fd(name: string, create = true): number | null {
    if (this.closed) throw new Error("page files are closed");
    const known = this.fds.get(name);
    if (known !== undefined) return known;
    const path = join(this.dir, name);
    let fd: number;
    try {
      fd = openSync(path, fsc.O_RDWR, DATA_FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      if (!create) return null;
      fd = openSync(path, fsc.O_RDWR | fsc.O_CREAT, DATA_FILE_MODE);
      this.created = true;
    }
    // Store files are the operator's alone, whatever the umask or a copy left.
    if (process.platform !== "win32" && (fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, DATA_FILE_MODE);
    this.fds.set(name, fd);
    return fd;
  }
}

function writeAll(fd: number, bytes: Uint8Array, offset: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, offset + done);
}
