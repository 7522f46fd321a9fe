import { createHash } from "node:crypto";
import { canonicalListText, canonicalOverridesText, effectiveCount, isListed, parseSanctionsText, type OverrideAction } from "../../core/compliance/sanctions";
import type { SanctionsList, SanctionsStatus, SanctionsStore, SanctionsVerdict } from "../../ports/sanctions";
import type { ListSource } from "./source";

export { parseSanctionsText } from "../../core/compliance/sanctions";

interface LoadedBase {
  addresses: Set<string>;
  version: string;
  contentSha256: string;
  loadedAt: number;
  /** How it was loaded: the source, or its cached copy at start. */
  origin: string;
}

export interface ReloadingListOptions {
  source: ListSource;
  store: SanctionsStore;
  /** Time between polls (file) or fetches (URL). */
  intervalMs: number;
  log?: (line: string) => void;
  now?: () => number;
}

const sha256 = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

/**
 * The sanctions list in force: the list loaded from a file or URL, reloaded
 * on change without a restart (a bad or unreachable version keeps the last
 * good one), with the operators' overrides from the store applied on top.
 * Its version names the loaded list and the overrides together, and every
 * new version is recorded in the store.
 */
export class ReloadingSanctionsList implements SanctionsList {
  private base: LoadedBase | null = null;
  private overrides = new Map<string, OverrideAction>();
  private version: string | null = null;
  private recorded: string | null = null;
  private count = 0;
  private checkedAt: number | null = null;
  private lastError: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private readonly log: (line: string) => void;
  private readonly now: () => number;

  constructor(private readonly opts: ReloadingListOptions) {
    this.log = opts.log ?? (() => {});
    this.now = opts.now ?? Date.now;
  }

  /** Overrides, then the cached copy if any, then one read of the source; then polls on a timer. */
  async start(): Promise<void> {
    this.overrides = await this.readOverrides();
    const cached = this.opts.source.cached();
    if (cached) this.accept(cached.bytes, `${this.opts.source.location} (copy saved ${new Date(cached.savedAt).toISOString()})`);
    await this.refresh();
    await this.recompute();
    this.timer = setInterval(() => void this.refresh(), this.opts.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One poll of the source; concurrent callers share it. */
  refresh(): Promise<void> {
    this.polling ??= this.poll().finally(() => (this.polling = null));
    return this.polling;
  }

  /** Re-reads the overrides after an operator changed them; applies at once. */
  async reloadOverrides(): Promise<void> {
    this.overrides = await this.readOverrides();
    await this.recompute();
  }

  check(address: string): SanctionsVerdict {
    if (!this.base || !this.version) throw new Error(`no sanctions list loaded${this.lastError ? `: ${this.lastError}` : ""}`);
    return { listed: isListed(this.base.addresses, this.overrides, address), listVersion: this.version };
  }

  status(): SanctionsStatus {
    let add = 0;
    let remove = 0;
    for (const a of this.overrides.values()) {
      if (a === "add") add++;
      else remove++;
    }
    return {
      kind: this.opts.source.kind,
      source: this.opts.source.location,
      version: this.version,
      baseVersion: this.base?.version ?? null,
      contentSha256: this.base?.contentSha256 ?? null,
      count: this.count,
      baseCount: this.base?.addresses.size ?? 0,
      overrides: { add, remove },
      loadedAt: this.base?.loadedAt ?? null,
      checkedAt: this.checkedAt,
      lastError: this.lastError,
    };
  }

  private async poll(): Promise<void> {
    let read;
    try {
      read = await this.opts.source.read();
    } catch (e) {
      read = { kind: "error" as const, message: (e as Error).message };
    }
    this.checkedAt = this.now();
    if (read.kind === "busy") return;
    if (read.kind === "unchanged") return this.setError(null);
    if (read.kind === "error") return this.setError(read.message);
    if (!this.accept(read.bytes, this.opts.source.location)) return;
    read.commit();
    this.setError(null);
    await this.recompute();
  }

  /** Parses and, when it is a new list, installs it. False when the bytes were refused. */
  private accept(bytes: Uint8Array, origin: string): boolean {
    const parsed = parseSanctionsText(Buffer.from(bytes).toString("utf8"));
    if (!parsed.ok) {
      this.setError(`${origin}: ${parsed.error}${this.base ? `; keeping version ${this.base.version}` : ""}`);
      return false;
    }
    const version = sha256(canonicalListText(parsed.value.addresses)).slice(0, 16);
    if (this.base?.version === version) return true;
    this.base = { addresses: new Set(parsed.value.addresses), version, contentSha256: sha256(bytes), loadedAt: this.now(), origin };
    this.log(`sanctions: loaded ${parsed.value.addresses.length} addresses from ${origin} (list version ${version})`);
    this.applyVersion();
    return true;
  }

  private setError(message: string | null): void {
    if (message !== null && message !== this.lastError) this.log(`sanctions: ${message}`);
    this.lastError = message;
  }

  private async readOverrides(): Promise<Map<string, OverrideAction>> {
    return new Map((await this.opts.store.overrides()).map((o) => [o.address, o.action]));
  }

  private applyVersion(): void {
    if (!this.base) return;
    const ovr = canonicalOverridesText([...this.overrides].map(([address, action]) => ({ address, action })));
    this.version = ovr ? `${this.base.version}+${sha256(ovr).slice(0, 8)}` : this.base.version;
    this.count = effectiveCount(this.base.addresses, this.overrides);
  }

  /** Recomputes the effective version and records it (idempotently) in the store. */
  private async recompute(): Promise<void> {
    const before = this.version;
    this.applyVersion();
    if (!this.base || !this.version) return;
    if (before !== this.version) this.log(`sanctions: effective list version ${this.version} (${this.count} addresses, ${this.overrides.size} overrides)`);
    if (this.recorded === this.version) return;
    this.recorded = this.version;
    try {
      await this.opts.store.recordVersion({
        version: this.version,
        baseVersion: this.base.version,
        source: this.base.origin,
        contentSha256: this.base.contentSha256,
        count: this.count,
        baseCount: this.base.addresses.size,
        overrides: this.overrides.size,
        at: this.now(),
      });
    } catch (e) {
      this.recorded = null;
      this.log(`sanctions: could not record list version ${this.version}: ${(e as Error).message}`);
    }
  }
}
