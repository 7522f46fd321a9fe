import type { OverrideAction } from "../core/compliance/sanctions";

export interface SanctionsVerdict {
  listed: boolean;
  /** The effective list version (loaded list + operator overrides) that decided: every decision records it. */
  listVersion: string;
}

export interface SanctionsList {
  /** Throws when no list can be consulted (none loaded): callers map that to a compliance error. */
  check(address: string): SanctionsVerdict;
}

/** What the list in force is made of: for health, the start-up log and the console. */
export interface SanctionsStatus {
  kind: "file" | "url";
  /** The file path or URL the list is loaded from. */
  source: string;
  /** Effective version: the loaded list's version, plus `+<hash>` of the overrides when there are any. Null until a list loaded. */
  version: string | null;
  /** sha256 (first 16 hex) of the loaded list's sorted, de-duplicated addresses. */
  baseVersion: string | null;
  /** sha256 of the source bytes as loaded, what `sha256sum` prints for the file. */
  contentSha256: string | null;
  /** Addresses in the effective list. */
  count: number;
  /** Addresses in the loaded list. */
  baseCount: number;
  overrides: { add: number; remove: number };
  /** Unix ms the loaded list was (re)loaded; overrides changes do not move it. */
  loadedAt: number | null;
  /** Unix ms of the last poll or fetch, successful or not. */
  checkedAt: number | null;
  /** Why the last poll did not load a new version; cleared once the source answers well again. */
  lastError: string | null;
}

export interface SanctionsOverride {
  address: string;
  action: OverrideAction;
  reason: string;
  /** Unix ms. */
  createdAt: number;
}

/** One change to the overrides, kept for the audit trail. */
export interface SanctionsOverrideChange {
  address: string;
  change: OverrideAction | "clear";
  reason: string;
  at: number;
}

/** A list version that was in force at some point: the console maps a decision's version to its source. */
export interface SanctionsVersionRecord {
  version: string;
  baseVersion: string;
  source: string;
  contentSha256: string;
  count: number;
  baseCount: number;
  overrides: number;
  at: number;
}

/** Operators' additions and removals on top of the loaded list, persisted; plus the versions in force. */
export interface SanctionsStore {
  overrides(): Promise<SanctionsOverride[]>;
  /** Sets (or replaces) the address's override and logs the change; durable before it resolves. */
  putOverride(o: SanctionsOverride): Promise<void>;
  /** Drops the address's override, logging why; false when it had none. */
  clearOverride(address: string, reason: string, at: number): Promise<boolean>;
  history(address?: string): Promise<SanctionsOverrideChange[]>;
  recordVersion(v: SanctionsVersionRecord): Promise<void>;
}
