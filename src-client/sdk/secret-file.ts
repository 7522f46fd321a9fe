import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { err, ok, type Result } from "../../src-shared/result";

export interface WriteSecretFileOptions {
  /** Replace an existing file. Off by default: replacing a key or a note can lose funds. */
  overwrite?: boolean;
}

function syncDir(dir: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * Writes a file only its owner can read (0600) from the first byte: it is
 * created with that mode under a temporary name, fsynced, then moved into
 * place, so the secret is never readable by others and never half-written.
 * The folder is created owner-only (0700) when missing.
 */
export function writeSecretFile(file: string, content: string, options: WriteSecretFileOptions = {}): Result<void, string> {
  const dir = path.dirname(path.resolve(file));
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  let created = false;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fd = openSync(tmp, "wx", 0o600);
    created = true;
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (options.overwrite) {
      renameSync(tmp, file);
      created = false;
      // A note rewritten in place (a chain of withdrawals) must survive a power cut: the rename itself is made durable.
      syncDir(dir);
    } else {
      // link() fails with EEXIST instead of replacing: no window in which another writer's file is clobbered.
      linkSync(tmp, file);
      unlinkSync(tmp);
      created = false;
    }
    return ok(undefined);
  } catch (e) {
    if (created) {
      try {
        unlinkSync(tmp);
      } catch {
        // already gone
      }
    }
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return err(`${file} already exists; refusing to overwrite it`);
    return err(`cannot write ${file}: ${code ?? (e as Error).message}`);
  }
}
