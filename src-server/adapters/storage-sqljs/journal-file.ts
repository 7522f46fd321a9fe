import { open, readFile, rename, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { DATA_FILE_MODE, fsyncDir, isErrno } from "./snapshot-file";

export const JOURNAL_FILE = "relay.journal";
export const JOURNAL_TMP_FILE = "relay.journal.tmp";

export async function readJournal(dir: string): Promise<Uint8Array> {
  try {
    return await readFile(join(dir, JOURNAL_FILE));
  } catch (err) {
    if (isErrno(err, "ENOENT")) return new Uint8Array(0);
    throw err;
  }
}

interface Pending {
  seq: number;
  bytes: Uint8Array;
  resolve: () => void;
  reject: (err: Error) => void;
}

async function writeFully(fh: FileHandle, buf: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done, position + done);
    done += bytesWritten;
  }
}

async function readFully(fh: FileHandle, length: number, position: number): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) throw new Error("journal shorter than expected");
    done += bytesRead;
  }
  return buf;
}

/**
 * Appends sealed records with group commit: everything queued while one
 * write+fsync is in flight goes out in the next single write+fsync. After an
 * I/O error the writer refuses all further work, because the in-memory
 * database is then ahead of what is on disk and retrying fsync is not
 * trustworthy (the kernel may have dropped the dirty pages).
 */
export class JournalWriter {
  fsyncs = 0;
  flushes = 0;
  private pending: Pending[] = [];
  private draining: Promise<void> | null = null;
  private lock: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private cutSeq: number | null = null;
  private cutOffset: number | null = null;

  private constructor(
    private fh: FileHandle,
    private readonly dir: string,
    private size: number,
    private readonly fsync: boolean,
    private readonly onFlushed: () => void,
  ) {}

  /** Cuts any damaged tail off first, so that new records never land behind garbage that replay would stop at. */
  static async open(dir: string, validEnd: number, fsync: boolean, onFlushed: () => void): Promise<JournalWriter> {
    const path = join(dir, JOURNAL_FILE);
    let fh: FileHandle;
    let created = false;
    try {
      fh = await open(path, "r+");
    } catch (err) {
      if (!isErrno(err, "ENOENT")) throw err;
      fh = await open(path, "w+", DATA_FILE_MODE);
      created = true;
    }
    try {
      const { size } = await fh.stat();
      if (size !== validEnd) {
        await fh.truncate(validEnd);
        if (fsync) await fh.sync();
      }
      if (created && fsync) await fsyncDir(dir);
    } catch (err) {
      await fh.close();
      throw err;
    }
    return new JournalWriter(fh, dir, validEnd, fsync, onFlushed);
  }

  get bytes(): number {
    return this.size;
  }

  get failed(): Error | null {
    return this.failure;
  }

  /** Resolves once the record is on disk (fsynced unless fsync is off). */
  append(seq: number, record: Uint8Array): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ seq, bytes: record, resolve, reject });
      // Start on a microtask so a synchronous burst of writes shares the first flush too.
      this.draining ??= Promise.resolve().then(() => this.drain());
    });
  }

  async whenIdle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /**
   * Called at the instant of a snapshot export, which contains every record
   * up to `seq`: remembers where the first later record lands in the file so
   * `dropCut` can keep exactly the records the snapshot lacks.
   */
  markCut(seq: number): void {
    this.cutSeq = seq;
    this.cutOffset = null;
  }

  /**
   * Removes the records covered by the last `markCut`, once that snapshot is
   * durable. Failures that leave the file as it was only reject (the stale
   * records are skipped on replay anyway); failures after which the file or
   * handle state is unknown disable the writer.
   */
  dropCut(): Promise<void> {
    return this.exclusive(async () => {
      if (this.failure) throw this.failure;
      const cut = this.cutOffset;
      this.cutSeq = null;
      this.cutOffset = null;
      if (cut === null) {
        await this.fh.truncate(0);
        this.size = 0;
        // Full fsync, not datasync: the new length is what must survive.
        if (this.fsync) await this.fatalIfFails(this.fh.sync());
      } else if (cut > 0) {
        await this.keepTail(cut);
      }
    });
  }

  async close(): Promise<void> {
    await this.whenIdle();
    await this.exclusive(() => this.fh.close());
  }

  /** Records written during the snapshot survive via a rewritten file swapped in by rename, so no instant lacks them. */
  private async keepTail(cut: number): Promise<void> {
    const path = join(this.dir, JOURNAL_FILE);
    const tmpPath = join(this.dir, JOURNAL_TMP_FILE);
    const tail = await readFully(this.fh, this.size - cut, cut);
    const tmp = await open(tmpPath, "w+", DATA_FILE_MODE);
    try {
      await writeFully(tmp, tail, 0);
      if (this.fsync) await tmp.sync();
    } catch (err) {
      await tmp.close();
      throw err;
    }
    // Windows refuses to rename over a file that is still open.
    await this.fatalIfFails(this.fh.close());
    try {
      await rename(tmpPath, path);
    } catch (err) {
      await tmp.close();
      this.fh = await this.fatalIfFails(open(path, "r+"));
      throw err;
    }
    this.fh = tmp;
    this.size = tail.length;
    if (this.fsync) await this.fatalIfFails(fsyncDir(this.dir));
  }

  private async fatalIfFails<T>(op: Promise<T>): Promise<T> {
    try {
      return await op;
    } catch (err) {
      this.fail(err);
      throw this.failure;
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0 && !this.failure) await this.exclusive(() => this.flushOnce());
    } finally {
      this.draining = null;
    }
  }

  private async flushOnce(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const buf = concat(batch);
    if (this.cutSeq !== null && this.cutOffset === null) {
      let offset = this.size;
      for (const p of batch) {
        if (p.seq > this.cutSeq) {
          this.cutOffset = offset;
          break;
        }
        offset += p.bytes.length;
      }
    }
    try {
      await writeFully(this.fh, buf, this.size);
      if (this.fsync) {
        await this.fh.datasync();
        this.fsyncs++;
      }
    } catch (err) {
      this.fail(err, batch);
      return;
    }
    this.size += buf.length;
    this.flushes++;
    for (const p of batch) p.resolve();
    this.onFlushed();
  }

  private fail(err: unknown, batch: Pending[] = []): void {
    const msg = err instanceof Error ? err.message : String(err);
    this.failure ??= new Error(`DurableDb journal I/O failed; writes are disabled until restart: ${msg}`, { cause: err });
    const rejected = [...batch, ...this.pending];
    this.pending = [];
    for (const p of rejected) p.reject(this.failure);
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn);
    this.lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}

function concat(batch: Pending[]): Uint8Array {
  if (batch.length === 1) return batch[0]!.bytes;
  let total = 0;
  for (const p of batch) total += p.bytes.length;
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of batch) {
    out.set(p.bytes, o);
    o += p.bytes.length;
  }
  return out;
}
