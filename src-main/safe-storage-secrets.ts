import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { FileSecretStore, parseByteFile } from "../src-server/adapters/keys/file-secret-store";
import type { SecretStore } from "../src-server/ports/secret-store";

/** The part of Electron's safeStorage this store uses (tests pass a stand-in). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: `basic_text` means a hard-coded password, i.e. no real protection. */
  getSelectedStorageBackend?: () => string;
}

/**
 * Desktop secret storage: `<dir>/<name>.enc`, the secret encrypted by the OS
 * keychain through Electron's safeStorage (DPAPI, Keychain, libsecret/kwallet).
 * A plain `<name>.json` left by a headless run of the same data dir is
 * encrypted on first read and removed, so keys end up encrypted at rest.
 */
export class SafeStorageSecretStore implements SecretStore {
  readonly protection = "encrypted with Electron safeStorage (OS keychain)";
  private readonly plain: FileSecretStore;

  constructor(
    readonly dir: string,
    private readonly safe: SafeStorageLike,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.plain = new FileSecretStore(dir);
  }

  private encFile(name: string): string {
    return this.plain.fileOf(name).replace(/\.json$/, ".enc");
  }

  load(name: string): Uint8Array | null {
    const enc = this.encFile(name);
    if (existsSync(enc)) {
      let text: string;
      try {
        text = this.safe.decryptString(readFileSync(enc));
      } catch (e) {
        throw new Error(`secret ${name}: safeStorage cannot decrypt ${enc} (another OS user or keychain?): ${(e as Error).message}`, { cause: e });
      }
      return parseByteFile(enc, text);
    }
    const legacy = this.plain.fileOf(name);
    if (!existsSync(legacy)) return null;
    const bytes = parseByteFile(legacy, readFileSync(legacy, "utf8"));
    this.save(name, bytes);
    rmSync(legacy, { force: true });
    this.log(`keys: ${name} moved from a plain file into safeStorage encryption`);
    return bytes;
  }

  save(name: string, secret: Uint8Array): void {
    const file = this.encFile(name);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, this.safe.encryptString(JSON.stringify(Array.from(secret))), { mode: 0o600 });
    renameSync(tmp, file);
    chmodSync(file, 0o600);
  }
}

/** Whether safeStorage really protects secrets here (not Linux's hard-coded-password fallback). */
export function safeStorageUsable(safe: SafeStorageLike): boolean {
  if (!safe.isEncryptionAvailable()) return false;
  return safe.getSelectedStorageBackend?.() !== "basic_text";
}

/**
 * The desktop host's key storage for a data dir: safeStorage when it protects
 * anything, else the headless owner-only files (said once in the log).
 */
export function desktopSecretStore(dataDir: string, safe: SafeStorageLike, log: (line: string) => void): { secrets: SecretStore; encrypted: boolean } {
  const dir = path.join(dataDir, "keys");
  if (safeStorageUsable(safe)) return { secrets: new SafeStorageSecretStore(dir, safe, log), encrypted: true };
  log("keys: Electron safeStorage is not available (no OS keychain); keys stay in owner-only files as in headless mode");
  return { secrets: new FileSecretStore(dir), encrypted: false };
}
