export interface SanctionsVerdict {
  listed: boolean;
  /** The list version (content hash) that decided: every decision records it. */
  listVersion: string;
}

export interface SanctionsList {
  /** Throws when no list can be consulted (none loaded): callers map that to a compliance error. */
  check(address: string): SanctionsVerdict;
}
