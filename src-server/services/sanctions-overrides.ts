import { parsePublicKey } from "../../src-shared/encoding/base58";
import { err, ok, type Result } from "../../src-shared/result";
import type { OverrideAction } from "../core/compliance/sanctions";
import type { SanctionsOverride, SanctionsOverrideChange, SanctionsStore } from "../ports/sanctions";

export type OverrideInputError = { kind: "InvalidAddress"; message: string } | { kind: "InvalidReason"; message: string };

export const MAX_REASON_LENGTH = 500;

/**
 * Operators' additions to and removals from the sanctions list, each with a
 * reason, persisted and applied on top of the loaded list at once (`onChange`
 * tells the list in force). The console's admin API will call this; until
 * then the `sanctions` script does, with the relay stopped.
 */
export class SanctionsOverrides {
  constructor(
    private readonly store: SanctionsStore,
    private readonly onChange: () => Promise<void> = async () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Lists the address whatever the loaded list says. */
  add(address: string, reason: string): Promise<Result<SanctionsOverride, OverrideInputError>> {
    return this.put(address, "add", reason);
  }

  /** Unlists the address whatever the loaded list says (e.g. a confirmed false positive). */
  remove(address: string, reason: string): Promise<Result<SanctionsOverride, OverrideInputError>> {
    return this.put(address, "remove", reason);
  }

  /** Drops the address's override: the loaded list decides again. False when it had none. */
  async clear(address: string, reason: string): Promise<Result<boolean, OverrideInputError>> {
    const checked = checkInput(address, reason);
    if (!checked.ok) return checked;
    const cleared = await this.store.clearOverride(address, checked.value, this.now());
    if (cleared) await this.onChange();
    return ok(cleared);
  }

  list(): Promise<SanctionsOverride[]> {
    return this.store.overrides();
  }

  history(address?: string): Promise<SanctionsOverrideChange[]> {
    return this.store.history(address);
  }

  private async put(address: string, action: OverrideAction, reason: string): Promise<Result<SanctionsOverride, OverrideInputError>> {
    const checked = checkInput(address, reason);
    if (!checked.ok) return checked;
    const o: SanctionsOverride = { address, action, reason: checked.value, createdAt: this.now() };
    await this.store.putOverride(o);
    await this.onChange();
    return ok(o);
  }
}

function checkInput(address: string, reason: string): Result<string, OverrideInputError> {
  const a = parsePublicKey(address);
  if (!a.ok) return err({ kind: "InvalidAddress", message: `address: ${a.error} (a base58 Solana address)` });
  const r = reason.trim();
  // eslint-disable-next-line no-control-regex
  if (r.length < 3 || r.length > MAX_REASON_LENGTH || /[\u0000-\u001f\u007f]/.test(r)) {
    return err({ kind: "InvalidReason", message: `reason: 3 to ${MAX_REASON_LENGTH} characters of one line` });
  }
  return ok(r);
}
