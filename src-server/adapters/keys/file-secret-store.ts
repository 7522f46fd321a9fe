import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SecretStore } from "../../ports/secret-store";

/**
 * Headless secret storage: `<dir>/<name>.json`, a JSON array of bytes (for a
 * 64-byte ed25519 key that is exactly a Solana CLI keypair file), mode 0600 in
 * a 0700 folder. The file permissions are the protection.
 */
export class FileSecretStore implements SecretStore {
  readonly protection = "file (mode 0600)";

  constructor(readonly dir: string) {}

  fileOf(name: string): string {
    if (!/^[a-z0-9-]{1,64}$/.test(name)) throw new Error(`secret name ${JSON.stringify(name)} is not a plain name`);
    return path.join(this.dir, `${name}.json`);
  }

  load(name: string): Uint8Array | null {
    const file = this.fileOf(name);
    if (!existsSync(file)) return null;
    return parseByteFile(file, readFileSync(file, "utf8"));
  }

  save(name: string, secret: Uint8Array): void {
    const file = this.fileOf(name);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, JSON.stringify(Array.from(secret)), { mode: 0o600 });
    renameSync(tmp, file);
    chmodSync(file, 0o600);
  }
}

/** A JSON array of bytes, as Solana CLI keypair files are. */
export function parseByteFile(file: string, text: string): Uint8Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`secret file ${file} is not JSON`);
  }
  if (!Array.isArray(parsed) || !parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new Error(`secret file ${file} is not a JSON array of bytes`);
  }
  return Uint8Array.from(parsed as number[]);
}
