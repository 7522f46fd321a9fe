import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSecretStore } from "../src-server/adapters/keys/file-secret-store";
import { loadOrCreateSigner } from "../src-server/adapters/keys/stored-signer";
import { DESKTOP_TOKEN_SECRET, desktopOperatorToken } from "./operator-token";
import { desktopSecretStore, SafeStorageSecretStore, type SafeStorageLike } from "./safe-storage-secrets";

/** A stand-in for Electron's safeStorage: reversible, but never the plain text on disk. */
function fakeSafeStorage(opts: { available?: boolean; backend?: string } = {}): SafeStorageLike & { calls: number } {
  const mask = (b: Buffer) => Buffer.from(b.map((x) => x ^ 0x5a));
  return {
    calls: 0,
    isEncryptionAvailable: () => opts.available ?? true,
    getSelectedStorageBackend: () => opts.backend ?? "gnome_libsecret",
    encryptString(s: string) {
      this.calls++;
      return Buffer.concat([Buffer.from("v10"), mask(Buffer.from(s, "utf8"))]);
    },
    decryptString(b: Buffer) {
      if (b.subarray(0, 3).toString() !== "v10") throw new Error("not ours");
      return mask(b.subarray(3)).toString("utf8");
    },
  };
}

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), "safe-secrets-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("SafeStorageSecretStore", () => {
  it("keeps a key encrypted at rest, owner-only, and reads it back", () => {
    const store = new SafeStorageSecretStore(path.join(dir, "keys"), fakeSafeStorage());
    const signer = loadOrCreateSigner(store, "relayer");
    const file = path.join(dir, "keys", "relayer.enc");
    expect(existsSync(file)).toBe(true);
    expect(existsSync(path.join(dir, "keys", "relayer.json"))).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file).includes(Buffer.from("["))).toBe(false);
    expect(loadOrCreateSigner(new SafeStorageSecretStore(path.join(dir, "keys"), fakeSafeStorage()), "relayer").address).toBe(signer.address);
  });

  it("encrypts a headless key file found in the data dir and removes the plain file", () => {
    const headless = loadOrCreateSigner(new FileSecretStore(path.join(dir, "keys")), "relayer");
    const lines: string[] = [];
    const store = new SafeStorageSecretStore(path.join(dir, "keys"), fakeSafeStorage(), (l) => lines.push(l));
    expect(loadOrCreateSigner(store, "relayer").address).toBe(headless.address);
    expect(existsSync(path.join(dir, "keys", "relayer.json"))).toBe(false);
    expect(existsSync(path.join(dir, "keys", "relayer.enc"))).toBe(true);
    expect(lines).toEqual(["keys: relayer moved from a plain file into safeStorage encryption"]);
  });

  it("says which file cannot be decrypted (another user's keychain)", () => {
    mkdirSync(path.join(dir, "keys"));
    writeFileSync(path.join(dir, "keys", "relayer.enc"), "garbage");
    expect(() => new SafeStorageSecretStore(path.join(dir, "keys"), fakeSafeStorage()).load("relayer")).toThrow(/cannot decrypt .*relayer\.enc/);
  });

  it("falls back to the headless files where safeStorage protects nothing", () => {
    const lines: string[] = [];
    expect(desktopSecretStore(dir, fakeSafeStorage(), (l) => lines.push(l))).toMatchObject({ encrypted: true });
    expect(desktopSecretStore(dir, fakeSafeStorage({ available: false }), (l) => lines.push(l))).toMatchObject({ encrypted: false });
    const basic = desktopSecretStore(dir, fakeSafeStorage({ backend: "basic_text" }), (l) => lines.push(l));
    expect(basic.encrypted).toBe(false);
    expect(basic.secrets).toBeInstanceOf(FileSecretStore);
    expect(lines.filter((l) => /not available/.test(l))).toHaveLength(2);
  });
});

describe("desktopOperatorToken", () => {
  it("is RELAY_OPERATOR_TOKEN when set, else one kept encrypted, else none", () => {
    const encrypted = desktopSecretStore(dir, fakeSafeStorage(), () => {});
    expect(desktopOperatorToken({ RELAY_OPERATOR_TOKEN: "from-the-environment-123" }, encrypted)).toBe("from-the-environment-123");
    const token = desktopOperatorToken({}, encrypted);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(
      desktopOperatorToken(
        {},
        desktopSecretStore(dir, fakeSafeStorage(), () => {}),
      ),
    ).toBe(token);
    expect(readFileSync(path.join(dir, "keys", `${DESKTOP_TOKEN_SECRET}.enc`)).includes(Buffer.from(token!))).toBe(false);
    expect(
      desktopOperatorToken(
        {},
        desktopSecretStore(dir, fakeSafeStorage({ available: false }), () => {}),
      ),
    ).toBeNull();
    expect(desktopOperatorToken({}, null)).toBeNull();
  });
});
