import { chmod, mkdir, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";

export const SNAPSHOT_FILE = "relay.sqlite";
export const SNAPSHOT_TMP_FILE = "relay.sqlite.tmp";

/** Points in the snapshot sequence, in order; the test seam may throw at any of them to model a crash there. */
export type SnapshotStep = "fsync-pages" | "write-tmp" | "fsync-tmp" | "rename" | "fsync-dir" | "truncate-journal";
export type CrashPoint = (step: SnapshotStep) => void;

/** The store's files and folder are the operator's alone: 0600 and 0700, whatever the umask or whoever made the folder. */
export const DATA_FILE_MODE = 0o600;
export const DATA_DIR_MODE = 0o700;

/** Creates the data dir 0700, and tightens one that already exists (an operator's `mkdir` leaves it 0755). */
export async function secureDataDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: DATA_DIR_MODE });
  if (process.platform !== "win32") await chmod(dir, DATA_DIR_MODE);
}

/** Tightens a store file an earlier version (or a copy) left readable by others; a missing file is fine. */
export async function secureDataFile(file: string): Promise<void> {
  if (process.platform === "win32") return;
  try {
    await chmod(file, DATA_FILE_MODE);
  } catch (err) {
    if (!isErrno(err, "ENOENT")) throw err;
  }
}

export function isErrno(err: unknown, ...codes: string[]): boolean {
  return err instanceof Error && codes.includes((err as NodeJS.ErrnoException).code ?? "");
}

/** Makes a rename or file creation in `dir` durable; without it a power cut can undo the rename. */
export async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, "r");
    await fh.sync();
  } catch (err) {
    // Windows cannot open directories, and some filesystems refuse fsync on them; rename is the best we get there.
    if (process.platform === "win32" || isErrno(err, "EISDIR", "EINVAL", "EPERM", "ENOTSUP")) return;
    throw err;
  } finally {
    await fh?.close();
  }
}

export async function readSnapshot(dir: string): Promise<{ bytes: Uint8Array; mtimeMs: number } | null> {
  const path = join(dir, SNAPSHOT_FILE);
  try {
    const [bytes, st] = await Promise.all([readFile(path), stat(path)]);
    return { bytes, mtimeMs: st.mtimeMs };
  } catch (err) {
    if (isErrno(err, "ENOENT")) return null;
    throw err;
  }
}

/** A tmp file is only ever an unfinished snapshot: the real one is untouched until the rename. */
export async function removeLeftoverTmp(dir: string, name: string): Promise<boolean> {
  try {
    await unlink(join(dir, name));
    return true;
  } catch (err) {
    if (isErrno(err, "ENOENT")) return false;
    throw err;
  }
}

export async function writeSnapshot(dir: string, bytes: Uint8Array, fsync: boolean, crashPoint?: CrashPoint): Promise<void> {
  const tmp = join(dir, SNAPSHOT_TMP_FILE);
  crashPoint?.("write-tmp");
  const fh = await open(tmp, "w", DATA_FILE_MODE);
  try {
    if (process.platform !== "win32") await fh.chmod(DATA_FILE_MODE);
    await fh.writeFile(bytes);
    crashPoint?.("fsync-tmp");
    if (fsync) await fh.sync();
  } finally {
    await fh.close();
  }
  crashPoint?.("rename");
  await rename(tmp, join(dir, SNAPSHOT_FILE));
  crashPoint?.("fsync-dir");
  if (fsync) await fsyncDir(dir);
}
