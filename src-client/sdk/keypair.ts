import { readFileSync } from "node:fs";
import nacl from "tweetnacl";
import { signEd25519 } from "../../src-shared/crypto/ed25519";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { bytesEqual } from "../../src-shared/encoding/bytes";
import { err, ok, type Result } from "../../src-shared/result";
import { writeSecretFile } from "./secret-file";

/** What the SDK needs from a wallet: an address and ed25519 signatures over UTF-8 text. */
export interface WalletSigner {
  readonly address: string;
  readonly publicKey: Uint8Array;
  sign(message: string | Uint8Array): Uint8Array;
}

/**
 * An ed25519 keypair whose secret half has no getter and never reaches
 * JSON.stringify or console.log, so it cannot leak into logs by accident.
 */
export class Keypair implements WalletSigner {
  readonly publicKey: Uint8Array;
  readonly address: string;
  readonly #secretKey: Uint8Array;

  private constructor(secretKey: Uint8Array) {
    this.#secretKey = secretKey.slice();
    this.publicKey = secretKey.slice(32);
    this.address = encodeBase58(this.publicKey);
  }

  static generate(): Keypair {
    return new Keypair(nacl.sign.keyPair().secretKey);
  }

  /**
   * The Solana 64-byte form (seed ‖ public key). The public half is re-derived
   * from the seed and compared, so a corrupted or hand-edited file is refused
   * instead of signing with a key whose address is not the one shown.
   */
  static fromSecretKey(secretKey: Uint8Array): Result<Keypair, string> {
    if (secretKey.length !== 64) return err(`a Solana keypair is 64 bytes, got ${secretKey.length}`);
    const derived = nacl.sign.keyPair.fromSeed(secretKey.slice(0, 32));
    if (!bytesEqual(derived.publicKey, secretKey.slice(32))) return err("the public half does not match the secret seed");
    return ok(new Keypair(secretKey));
  }

  sign(message: string | Uint8Array): Uint8Array {
    return signEd25519(message, this.#secretKey);
  }

  /** The Solana CLI file form. Only for writing the key file. */
  exportSecretKey(): Uint8Array {
    return this.#secretKey.slice();
  }

  toJSON(): string {
    return `Keypair(${this.address})`;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toJSON();
  }
}

/** Reads a Solana CLI keypair file: a JSON array of 64 integers 0..255. */
export function readKeypairFile(file: string): Result<Keypair, string> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return err(`cannot read keypair file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return err(`keypair file ${file} is not JSON`);
  }
  if (!Array.isArray(parsed) || parsed.length !== 64 || !parsed.every((b) => typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= 255)) {
    return err(`keypair file ${file} is not a JSON array of 64 bytes (Solana CLI format)`);
  }
  const kp = Keypair.fromSecretKey(Uint8Array.from(parsed as number[]));
  return kp.ok ? kp : err(`keypair file ${file}: ${kp.error}`);
}

export interface WriteKeypairOptions {
  /** Replace an existing file. Off by default: overwriting a key can lose funds. */
  overwrite?: boolean;
}

/** Writes the Solana CLI form with owner-only permissions (0600), never half-written. */
export function writeKeypairFile(file: string, keypair: Keypair, options: WriteKeypairOptions = {}): Result<void, string> {
  return writeSecretFile(file, JSON.stringify(Array.from(keypair.exportSecretKey())), options);
}
