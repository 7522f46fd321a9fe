/**
 * Where the loaded sanctions list comes from. A source answers bytes only
 * when they may differ from the last version it committed; the list parses
 * them and commits only what it accepted, so a bad version is read again (and
 * refused again) until it is fixed, while the last good one stays in force.
 */
export type SourceRead =
  /** Same as the last committed version. */
  | { kind: "unchanged" }
  /** Being written right now: no verdict this time. */
  | { kind: "busy" }
  | { kind: "content"; bytes: Uint8Array; commit(): void }
  | { kind: "error"; message: string };

export interface ListSource {
  readonly kind: "file" | "url";
  /** The file path or URL, for status and logs. */
  readonly location: string;
  /** A version kept from an earlier run, in force until the first read answers. */
  cached(): { bytes: Uint8Array; savedAt: number } | null;
  read(): Promise<SourceRead>;
}
