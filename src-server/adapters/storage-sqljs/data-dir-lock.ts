import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

const LOCK = "relay.lock";

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * One process per data dir: two relays replaying and appending the same
 * journal would corrupt it. A lock left by a killed process (pid gone) is
 * taken over, so kill -9 never blocks the next start. The dir is made
 * owner-only (0700) on the way.
 */
export function lockDataDir(dir: string): () => void {
  // The data dir holds the store and keys: 0700 even when the operator made it (0755) before the first start.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== "win32") chmodSync(dir, 0o700);
  const file = path.join(dir, LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const holder = Number(readFileSync(file, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new Error(`data dir ${dir} is in use by process ${holder}; stop it or use another RELAY_DATA_DIR`, { cause: e });
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`cannot lock data dir ${dir}`);
}
