import { COMPLIANCE_VALIDITY_SEC } from "../../src-shared/compliance";
import { COMPLIANCE_MESSAGE_TEMPLATE } from "../../src-shared/messages";
import type { Network } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";
import { signCompliance } from "../core/compliance/signature";
import type { ComplianceDecision, ComplianceLog } from "../ports/compliance-log";
import type { SanctionsList, SanctionsVerdict } from "../ports/sanctions";
import { isStoreUnavailable } from "../ports/store-errors";

/** The compliance key as this service needs it: a public address and ed25519 signing. */
export interface ComplianceKey {
  readonly address: string;
  sign(message: string): Uint8Array;
}

export type ComplianceRefusal =
  /** Invalid or expired auth token. */
  | { kind: "Unauthorized" }
  /** The wallet is on the list in force. */
  | { kind: "Listed"; listVersion: string }
  /** No list could be consulted, or the decision could not be recorded: nothing is issued. */
  | { kind: "Unavailable"; detail: string }
  /** The audit log's database cannot be reached: nothing is issued, and the same request may succeed shortly. */
  | { kind: "StoreUnavailable" };

export interface IssuedSignature {
  /** `<expiresAtUnix>.<base58 signature>`, the plain-text answer. */
  body: string;
  expiresAt: number;
  wallet: string;
  listVersion: string;
}

/** Compliance signature decisions since the relay started (the console's Compliance page). */
export interface ComplianceSignatureCounts {
  /** Whether every decision is also stored (config compliance.auditLog). */
  auditLog: boolean;
  /** Unix ms the counts start from. */
  since: number;
  issued: number;
  refused: number;
  error: number;
}

export interface ComplianceDeps {
  walletOf(token: string): Promise<string | null>;
  sanctions: SanctionsList;
  key: ComplianceKey;
  log: ComplianceLog;
  /**
   * Store every compliance signature decision (config compliance.auditLog). Off: issued
   * signatures and list errors are counted only, since any fresh wallet can ask for one;
   * a listed wallet's refusal is still stored.
   */
  auditLog?: boolean;
  /** Each decision as it is made (the relay_compliance_signatures_total counter). */
  onDecision?: (network: Network, outcome: "issued" | "refused" | "error") => void;
  nowMs?: () => number;
  logLine?: (line: string) => void;
}

/**
 * POST /get_ofac_signature: screens the auth token's wallet against the
 * sanctions list in force and, when it is clear, signs `OFAC:<network>:<wallet>:<expiresAtUnix>`
 * with the compliance key. Every decision is counted; a refusal (listed wallet)
 * is recorded with the list version that decided before the answer goes out, and
 * with the audit log on so is every signature issued and every list error.
 */
export class ComplianceService {
  private readonly now: () => number;
  private readonly logLine: (line: string) => void;
  private readonly counts: ComplianceSignatureCounts;

  constructor(private readonly deps: ComplianceDeps) {
    this.now = deps.nowMs ?? Date.now;
    this.logLine = deps.logLine ?? (() => {});
    this.counts = { auditLog: deps.auditLog ?? false, since: this.now(), issued: 0, refused: 0, error: 0 };
  }

  signatureCounts(): ComplianceSignatureCounts {
    return { ...this.counts };
  }

  get publicKey(): { publicKey: string; algorithm: "ed25519"; message: string; encoding: string; validitySec: number } {
    return {
      publicKey: this.deps.key.address,
      algorithm: "ed25519",
      message: COMPLIANCE_MESSAGE_TEMPLATE,
      encoding: "<expiresAtUnix>.<base58 signature>",
      validitySec: COMPLIANCE_VALIDITY_SEC,
    };
  }

  async issue(network: Network, token: string): Promise<Result<IssuedSignature, ComplianceRefusal>> {
    const wallet = await this.deps.walletOf(token);
    if (!wallet) return err({ kind: "Unauthorized" });
    const at = this.now();
    const decision = (
      outcome: ComplianceDecision["outcome"],
      listVersion: string | null,
      expiresAt: number | null,
      detail: string | null,
    ): ComplianceDecision => ({
      at,
      purpose: "ofac_signature",
      network,
      address: wallet,
      outcome,
      listVersion,
      expiresAt,
      detail,
    });

    let verdict: SanctionsVerdict;
    try {
      verdict = this.deps.sanctions.check(wallet);
    } catch (e) {
      const detail = (e as Error).message;
      this.count(network, "error");
      if (this.counts.auditLog) await this.record(decision("error", null, null, detail));
      return err({ kind: "Unavailable", detail });
    }
    if (verdict.listed) {
      this.count(network, "refused");
      const failed = await this.record(decision("refused", verdict.listVersion, null, "wallet is on the sanctions list"));
      // A refusal stands even if its record failed: never issue to a listed wallet.
      if (failed) this.logLine(`compliance: refused ${wallet} on ${network} (list ${verdict.listVersion}) but could not record it`);
      return err({ kind: "Listed", listVersion: verdict.listVersion });
    }
    const signed = signCompliance((m) => this.deps.key.sign(m), network, wallet, Math.floor(at / 1000));
    // With the audit log on, issued only once its record is durable: the log then holds every signature that exists.
    const failed = this.counts.auditLog ? await this.record(decision("issued", verdict.listVersion, signed.expiresAt, null)) : null;
    if (failed) {
      this.count(network, "error");
      return err(isStoreUnavailable(failed) ? { kind: "StoreUnavailable" } : { kind: "Unavailable", detail: "the decision could not be recorded" });
    }
    this.count(network, "issued");
    return ok({ body: signed.body, expiresAt: signed.expiresAt, wallet, listVersion: verdict.listVersion });
  }

  private count(network: Network, outcome: "issued" | "refused" | "error"): void {
    this.counts[outcome] += 1;
    this.deps.onDecision?.(network, outcome);
  }

  /** Null once recorded, else why not. */
  private async record(d: ComplianceDecision): Promise<Error | null> {
    try {
      await this.deps.log.record(d);
      return null;
    } catch (e) {
      this.logLine(`compliance: could not record a decision: ${(e as Error).message}`);
      return e instanceof Error ? e : new Error(String(e));
    }
  }
}

/**
 * The list as the relay pipeline sees it: the same answers, and each
 * recipient screening recorded with the version that decided.
 */
export function recordingSanctionsList(
  list: SanctionsList,
  log: ComplianceLog,
  logLine: (line: string) => void = () => {},
  nowMs: () => number = Date.now,
): SanctionsList {
  const record = (d: ComplianceDecision): void => {
    log.record(d).catch((e: unknown) => logLine(`compliance: could not record a screening: ${(e as Error).message}`));
  };
  return {
    check(address) {
      try {
        const v = list.check(address);
        record({
          at: nowMs(),
          purpose: "relay_recipient",
          network: null,
          address,
          outcome: v.listed ? "listed" : "clear",
          listVersion: v.listVersion,
          expiresAt: null,
          detail: null,
        });
        return v;
      } catch (e) {
        record({
          at: nowMs(),
          purpose: "relay_recipient",
          network: null,
          address,
          outcome: "error",
          listVersion: null,
          expiresAt: null,
          detail: (e as Error).message,
        });
        throw e;
      }
    },
  };
}
