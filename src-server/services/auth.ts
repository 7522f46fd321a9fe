import { randomUUID } from "node:crypto";
import { verifyEd25519 } from "../../src-shared/crypto/ed25519";
import { loginMessage } from "../../src-shared/messages";
import { err, ok, type Result } from "../../src-shared/result";
import { judgeLoginTimestamp, type LoginWindow } from "../core/auth/login-window";
import type { AuthStore } from "../ports/auth-store";
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
export type TokenAdmission = (wallet: string) => { retryAfterSec: number; reason: string } | null;

export interface AuthSettings extends LoginWindow {
  tokenTtlSec: number;
  /** The login signature check; composition passes the relay's fast one. Default: src-shared's portable check, the same answers. */
  verifySignature?: SignatureVerifier;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class AuthService {
  private lastPrune = 0;

  constructor(
    private readonly store: AuthStore,
    private readonly settings: AuthSettings,
    private readonly nowSec: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async login(input: LoginInput, admit: TokenAdmission = () => null): Promise<Result<{ id: string }, LoginError>> {
    // The signature is checked first: an unsigned request learns nothing about timing or replay state.
    const verify = this.settings.verifySignature ?? verifyEd25519;
    if (!verify(loginMessage(input.message), input.signature, input.walletBytes)) return err({ kind: "InvalidSignature" });
    const now = this.nowSec();
    const verdict = judgeLoginTimestamp(input.message, now, this.settings);
    if (verdict !== "fresh") return err({ kind: "MessageTooOld", reason: `timestamp is ${verdict}` });
    // Remembered until the timestamp leaves the window; after that the age check refuses it anyway.
    const fresh = await this.store.consumeLogin(input.wallet, input.message, input.message + this.settings.maxAgeSec + 1);
    if (!fresh) return err({ kind: "MessageTooOld", reason: "this signed timestamp was already used" });
    // Checked and counted with no await before the token is saved: concurrent logins cannot both pass a full cap.
    const refused = admit(input.wallet);
    if (refused) return err({ kind: "TooManyTokens", ...refused });
    const id = randomUUID();
    await this.store.saveToken({ id, wallet: input.wallet, expiresAt: now + this.settings.tokenTtlSec }, now);
    await this.maybePrune(now);
    return ok({ id });
  }

  /** The wallet behind a valid token, else null (unknown, malformed or expired). */
  walletOf(token: unknown): string | null {
    if (typeof token !== "string" || !UUID.test(token)) return null;
    const row = this.store.findToken(token.toLowerCase());
    if (!row || row.expiresAt <= this.nowSec()) return null;
    return row.wallet;
  }

  private async maybePrune(now: number): Promise<void> {
    if (now - this.lastPrune < 600) return;
    this.lastPrune = now;
    await this.store.prune(now);
  }
}
