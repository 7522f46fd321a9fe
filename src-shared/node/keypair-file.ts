/**
 * Solana CLI keypair files and the Signer that holds their key: node-only
 * (node:fs, node:crypto), shared by the relay (its fee payer), the pool scripts
 * (scripts/solana) and tests. src-shared/node is never bundled for the browser.
 */
import { readFileSync, statSync } from "node:fs";
import { encodeBase58 } from "../encoding/base58";
import { ed25519PublicKeyOfSeed, ed25519Signer } from "./ed25519-native";

/**
 * An ed25519 key that signs but never shows its secret: no getter, and
 * toJSON/inspect print only the public key, so it cannot leak into logs.
 */
export class Signer {
  readonly publicKey: Uint8Array;
  readonly address: string;
  readonly #sign: (message: string | Uint8Array) => Uint8Array;

  constructor(secretKey: Uint8Array) {
    if (secretKey.length !== 64) throw new Error("an ed25519 secret key is 64 bytes");
    this.#sign = ed25519Signer(secretKey);
    this.publicKey = secretKey.slice(32);
    this.address = encodeBase58(this.publicKey);
  }

  sign(message: string | Uint8Array): Uint8Array {
    return this.#sign(message);
  }

  toJSON(): string {
    return `Signer(${this.address})`;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toJSON();
  }
}

/**
 * An operator's existing Solana CLI keypair file (`solana-keygen new -o …`).
 * It must exist: a fee payer is funded on purpose, never created silently.
 * On POSIX it must be the owner's alone (see checkKeyFilePermissions): a
 * file others can read is refused before it is read, with the chmod that
 * fixes it. The error names the file and the problem, never the key's bytes.
 */
export function readKeypairFile(file: string): Signer {
  let text: string;
  try {
    const loose = checkKeyFilePermissions(file);
    if (loose) throw new Error(loose);
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (!code) throw e;
    throw new Error(`key file ${file} cannot be read: ${code}`, { cause: e });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`key file ${file} is not a JSON keypair`);
  }
  if (!Array.isArray(parsed) || parsed.length !== 64 || !parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new Error(`key file ${file} is not a 64-byte Solana keypair`);
  }
  const secret = Uint8Array.from(parsed as number[]);
  // A keypair file whose public half does not match its secret would sign as someone else.
  const derived = ed25519PublicKeyOfSeed(secret.subarray(0, 32));
  if (!derived.every((b, i) => b === secret[32 + i])) throw new Error(`key file ${file}: the public key does not belong to the secret key`);
  return new Signer(secret);
}

/**
 * Group- or world-accessible key files are refused on POSIX, as ssh does:
 * the problem, or null when the file is the owner's alone. The message holds
 * the exact command that fixes it.
 */
export function checkKeyFilePermissions(file: string): string | null {
  if (process.platform === "win32") return null;
  const mode = statSync(file).mode & 0o777;
  return mode & 0o077
    ? `key file ${file} is accessible by others (mode ${mode.toString(8).padStart(3, "0")}); refusing to use it. Fix it with: chmod 600 ${shellQuote(file)}`
    : null;
}

/** A path as it can be pasted into a POSIX shell. */
const shellQuote = (p: string): string => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);
