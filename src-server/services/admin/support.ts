import { REVERT_STATUSES, type AdminCompliance, type AdminRevert, type RevertStatus } from "../../../src-shared/api/admin";
import type { Network } from "../../../src-shared/networks";
import { err, ok, type Result } from "../../../src-shared/result";
import type { ComplianceLog } from "../../ports/compliance-log";
import type { RevertStore, RevertRecord } from "../../ports/revert-store";
import type { SanctionsStatus } from "../../ports/sanctions";
import type { ComplianceSignatureCounts } from "../compliance";
import type { SanctionsOverrides } from "../sanctions-overrides";

export interface AdminSupportDeps {
  reverts: RevertStore;
  decisions: ComplianceLog;
  /** Compliance signatures since start: those the log does not keep are only counted. */
  signatureCounts(): ComplianceSignatureCounts;
  sanctionsStatus(): SanctionsStatus;
  overrides: SanctionsOverrides;
}

const SCAN = 1000;

export function toAdminRevert(r: RevertRecord): AdminRevert {
  const steps = [...r.steps].sort((a, b) => a.at - b.at);
  const last = steps[steps.length - 1];
  return {
    id: r.id,
    network: r.network,
    depositSignature: r.depositSignature,
    wallet: r.wallet,
    mint: r.mint,
    amount: r.amount === null ? null : r.amount.toString(),
    status: r.status,
    error: r.error,
    signature: r.signature,
    requestedAt: r.requestedAt,
    durationMs: last ? Math.max(0, last.at - r.requestedAt) : 0,
    steps: steps.map((s) => ({
      kind: s.kind,
      at: s.at,
      sinceStartMs: s.at - r.requestedAt,
      ...(s.kind === "processed" ? { signature: s.signature } : {}),
      ...(s.kind === "failed" ? { error: s.error, detail: s.detail } : {}),
    })),
  };
}

/** The support side of the console: the revert queue and the compliance log with the sanctions list. */
export class AdminSupport {
  constructor(private readonly deps: AdminSupportDeps) {}

  async reverts(filter: { status?: RevertStatus; network?: Network }, limit: number): Promise<AdminRevert[]> {
    return (await this.deps.reverts.recent(SCAN))
      .filter((r) => (!filter.status || r.status === filter.status) && (!filter.network || r.network === filter.network))
      .slice(0, limit)
      .map(toAdminRevert);
  }

  async revert(id: string): Promise<AdminRevert | null> {
    const r = await this.deps.reverts.get(id);
    return r ? toAdminRevert(r) : null;
  }

  async compliance(address: string | null, limit: number): Promise<AdminCompliance> {
    const s = this.deps.sanctionsStatus();
    return {
      decisions: (await this.deps.decisions.recent(limit, address ?? undefined)).map((d) => ({ ...d })),
      signatures: this.deps.signatureCounts(),
      list: {
        kind: s.kind,
        source: s.source,
        version: s.version,
        count: s.count,
        baseCount: s.baseCount,
        overrides: s.overrides,
        loadedAt: s.loadedAt,
        checkedAt: s.checkedAt,
        lastError: s.lastError,
      },
      overrides: await this.deps.overrides.list(),
      history: (await this.deps.overrides.history(address ?? undefined)).slice(-200).reverse(),
    };
  }

  async override(address: string, action: "add" | "remove" | "clear", reason: string): Promise<Result<AdminCompliance, string>> {
    const r =
      action === "add"
        ? await this.deps.overrides.add(address, reason)
        : action === "remove"
          ? await this.deps.overrides.remove(address, reason)
          : await this.deps.overrides.clear(address, reason);
    if (!r.ok) return err(r.error.message);
    return ok(await this.compliance(null, 100));
  }
}

export const isRevertStatus = (v: unknown): v is RevertStatus => REVERT_STATUSES.includes(v as RevertStatus);
