import { randomUUID } from "node:crypto";
import { verifyEd25519 } from "../../src-shared/crypto/ed25519";
import { loginMessage } from "../../src-shared/messages";
import { err, ok, type Result } from "../../src-shared/result";
import { judgeLoginTimestamp, type LoginWindow } from "../core/auth/login-window";
import type { AuthStore, StoredToken } from "../ports/auth-store";
import type { SignatureVerifier } from "../ports/signature-verifier";

export interface LoginInput {
  wallet: string;
  walletBytes: Uint8Array;
  signature: Uint8Array;
  message: number;
}

export type LoginError =
  { kind: "InvalidSignature" } | { kind: "MessageTooOld"; reason: string } | { kind: "TooManyTokens"; retryAfterSec: number; reason: string };

/**
 * The caller's token caps (per client address, per wallet): asked once the login is
 * proven and fresh, just before its token is issued; null lets it through (and counts it).
 */
export type TokenAdmission = (wallet: string) => Promise<{ retryAfterSec: number; reason: string } | null>;

export interface AuthSettings extends LoginWindow {
  tokenTtlSec: number;
  /** The login signature check; composition passes the relay's fast one. Default: src-shared's portable check, the same answers. */
  verifySignature?: SignatureVerifier;
}

/** How many found tokens an instance remembers: a few MB at most, and every active client's token on a busy relay. */
export const TOKEN_CACHE_SIZE = 10_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class AuthService {
  private lastPrune = 0;
  /**
   * Tokens this instance has found, most recently used last. A token never changes once
   * saved (only its expiry retires it, checked on every use), so a found one needs no
   * second look in the store: a request's one round trip is its limits'. A token not
   * found is not remembered, so one another instance issued a moment ago is found next time.
   */
  private readonly found = new Map<string, StoredToken>();

  constructor(
    private readonly store: AuthStore,
    private readonly settings: AuthSettings,
    private readonly nowSec: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async login(input: LoginInput, admit: TokenAdmission = () => Promise.resolve(null)): Promise<Result<{ id: string }, LoginError>> {
    // The signature is checked first: an unsigned request learns nothing about timing or replay state.
    const verify = this.settings.verifySignature ?? verifyEd25519;
    if (!verify(loginMessage(input.message), input.signature, input.walletBytes)) return err({ kind: "InvalidSignature" });
    const now = this.nowSec();
    const verdict = judgeLoginTimestamp(input.message, now, this.settings);
    if (verdict !== "fresh") return err({ kind: "MessageTooOld", reason: `timestamp is ${verdict}` });
    // Remembered until the timestamp leaves the window; after that the age check refuses it anyway.
    const fresh = await this.store.consumeLogin(input.wallet, input.message, input.message + this.settings.maxAgeSec + 1);
    if (!fresh) return err({ kind: "MessageTooOld", reason: "this signed timestamp was already used" });
    // Checked and counted before the token is saved; the caps' own take refuses a login that lost a race for the last one.
    const refused = await admit(input.wallet);
    if (refused) return err({ kind: "TooManyTokens", ...refused });
    const id = randomUUID();
    await this.store.saveToken({ id, wallet: input.wallet, expiresAt: now + this.settings.tokenTtlSec }, now);
    await this.maybePrune(now);
    return ok({ id });
  }

  /** The wallet behind a valid token, else null (unknown, malformed or expired). */
  async walletOf(token: unknown): Promise<string | null> {
    if (typeof token !== "string" || !UUID.test(token)) return null;
    const id = token.toLowerCase();
    const row = this.found.get(id) ?? (await this.store.findToken(id));
    if (!row) return null;
    this.found.delete(id);
    if (row.expiresAt <= this.nowSec()) return null;
    // Put back last: the least recently used token is the first to go.
    this.found.set(id, row);
    if (this.found.size > TOKEN_CACHE_SIZE) this.found.delete(this.found.keys().next().value!);
    return row.wallet;
  }

  private async maybePrune(now: number): Promise<void> {
    if (now - this.lastPrune < 600) return;
    this.lastPrune = now;
    await this.store.prune(now);
  }
}
