/**
 * Where the relay keeps its secrets at rest (relayer key, compliance key,
 * operator token hash). Headless: owner-only files in `<dataDir>/keys`. The
 * desktop host replaces it with one that encrypts through Electron's
 * safeStorage (the OS keychain), without the server knowing the difference.
 */
export interface SecretStore {
  /** How secrets are protected at rest, shown in the console: e.g. `file (mode 0600)`. */
  readonly protection: string;
  /** The named secret's bytes, or null when it was never saved. Throws when it exists but cannot be read. */
  load(name: string): Uint8Array | null;
  /** Saves atomically with owner-only permissions, replacing any previous value. */
  save(name: string, secret: Uint8Array): void;
}
