import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { SecretStore } from "../../ports/secret-store";

/** The secret store entry: 16 bytes of salt, then sha256(salt ‖ token). Never the token itself. */
export const OPERATOR_TOKEN_SECRET = "operator-token";
const SALT = 16;

export type OperatorTokenSource = "configured" | "generated";

const digest = (salt: Uint8Array, token: string): Buffer => createHash("sha256").update(salt).update(token, "utf8").digest();

/** 32 random bytes, base64url: 43 characters, 256 bits. */
export function generateOperatorToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * The console's operator token. The relay holds only a salted hash of it
 * (generated tokens are hashed before they are stored, configured ones on
 * start) and compares hashes in constant time, so neither the comparison's
 * timing nor a memory or data-dir dump gives the token away.
 */
export class OperatorToken {
  private constructor(
    readonly source: OperatorTokenSource,
    private readonly salt: Uint8Array,
    private readonly hash: Buffer,
  ) {}

  /** RELAY_OPERATOR_TOKEN or the config file's operatorToken (the desktop host sets it too). */
  static fromConfigured(token: string): OperatorToken {
    const salt = randomBytes(SALT);
    return new OperatorToken("configured", salt, digest(salt, token));
  }

  /**
   * The generated token's hash from the store; on first start a new token is
   * generated, its hash saved, and the token itself handed to `announce`
   * exactly once (it is never stored or shown again).
   */
  static loadOrCreate(store: SecretStore, announce: (token: string) => void): OperatorToken {
    const saved = store.load(OPERATOR_TOKEN_SECRET);
    if (saved) {
      if (saved.length !== SALT + 32) throw new Error(`secret ${OPERATOR_TOKEN_SECRET} is not a salted sha256 (${saved.length} bytes)`);
      return new OperatorToken("generated", saved.slice(0, SALT), Buffer.from(saved.slice(SALT)));
    }
    const token = generateOperatorToken();
    const salt = randomBytes(SALT);
    const hash = digest(salt, token);
    store.save(OPERATOR_TOKEN_SECRET, Buffer.concat([salt, hash]));
    announce(token);
    return new OperatorToken("generated", salt, hash);
  }

  /** Constant time in the presented token's content (both sides are 32-byte digests). */
  verify(presented: string): boolean {
    return timingSafeEqual(digest(this.salt, presented), this.hash);
  }

  /** Identifies which token is in force without revealing anything usable: sha256 of the salted hash, 16 hex. */
  get fingerprint(): string {
    return createHash("sha256").update(this.salt).update(this.hash).digest("hex").slice(0, 16);
  }

  toJSON(): string {
    return `OperatorToken(${this.source}, ${this.fingerprint})`;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toJSON();
  }
}

/** The one-time notice printed on first start: a generated token is printed once, never again (README.md: Running it). */
export function operatorTokenNotice(token: string, dataDir: string): string[] {
  const rule = "=".repeat(78);
  return [
    rule,
    "OPERATOR TOKEN: shown this one time only. Copy it now.",
    "",
    `    ${token}`,
    "",
    "Sign in to the console (/console/) with it; the admin API takes it as",
    "'Authorization: Bearer <token>'. The relay keeps only a salted hash of it in",
    `${dataDir}/keys, so it cannot show it again. Lost it? Stop the relay, delete`,
    "keys/operator-token.json and start again for a new one, or set RELAY_OPERATOR_TOKEN.",
    rule,
  ];
}
