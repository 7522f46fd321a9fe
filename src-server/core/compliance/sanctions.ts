import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { err, ok, type Result } from "../../../src-shared/result";

export type ListFormat = "lines" | "json";

export interface ParsedList {
  /** Sorted and de-duplicated. */
  addresses: string[];
  format: ListFormat;
}

/** Entries past this are refused: the SOL list holds a handful, every OFAC per-asset list well under this. */
export const MAX_LIST_ENTRIES = 1_000_000;

/**
 * Parses the OFAC per-asset list formats: one address per line with `#`
 * comments (sanctioned_addresses_SOL.txt), or a JSON array of strings
 * (sanctioned_addresses_SOL.json). An entry that is not a Solana public key
 * fails the whole list rather than being dropped, and so does a text with no
 * content at all (a truncated download): to list nobody, send `[]` or a
 * comment line.
 */
export function parseSanctionsText(text: string): Result<ParsedList, string> {
  const body = text.replace(/^\uFEFF/, "");
  const trimmed = body.trim();
  if (trimmed.length === 0) return err("the list is empty (no entries and no comments); refusing what looks like a truncated file");
  if (trimmed.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (e) {
      return err(`not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(parsed)) return err("a JSON sanctions list must be an array of strings");
    if (parsed.length > MAX_LIST_ENTRIES) return err(`more than ${MAX_LIST_ENTRIES} entries`);
    for (let i = 0; i < parsed.length; i++) {
      const e: unknown = parsed[i];
      if (typeof e !== "string") return err(`entry ${i}: not a string`);
      if (!parsePublicKey(e.trim()).ok) return err(`entry ${i}: not a Solana address: ${JSON.stringify(e.slice(0, 60))}`);
    }
    return ok({ addresses: [...new Set((parsed as string[]).map((e) => e.trim()))].sort(), format: "json" });
  }
  const out: string[] = [];
  const lines = body.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const entry = lines[i]!.replace(/#.*$/, "").trim();
    if (entry.length === 0) continue;
    if (!parsePublicKey(entry).ok) return err(`line ${i + 1}: not a Solana address: ${JSON.stringify(entry.slice(0, 60))}`);
    out.push(entry);
    if (out.length > MAX_LIST_ENTRIES) return err(`more than ${MAX_LIST_ENTRIES} entries`);
  }
  return ok({ addresses: [...new Set(out)].sort(), format: "lines" });
}

/** The canonical text a list version hashes: the same set of addresses always has the same version. */
export const canonicalListText = (sortedAddresses: readonly string[]): string => sortedAddresses.join("\n");

/** An operator's edit on top of the loaded list: `add` lists an address, `remove` unlists one. */
export type OverrideAction = "add" | "remove";

export interface OverrideEntry {
  address: string;
  action: OverrideAction;
}

/** Overrides win over the loaded list, whichever way they point. */
export function isListed(base: ReadonlySet<string>, overrides: ReadonlyMap<string, OverrideAction>, address: string): boolean {
  const o = overrides.get(address);
  return o === undefined ? base.has(address) : o === "add";
}

/** How many addresses the effective list holds. */
export function effectiveCount(base: ReadonlySet<string>, overrides: ReadonlyMap<string, OverrideAction>): number {
  let n = base.size;
  for (const [address, action] of overrides) {
    if (action === "add" && !base.has(address)) n++;
    if (action === "remove" && base.has(address)) n--;
  }
  return n;
}

/**
 * The overrides' part of the effective version: every override counts, even
 * one that changes nothing today (an `add` of an address the list already
 * holds), because it will matter once the list changes.
 */
export function canonicalOverridesText(overrides: Iterable<OverrideEntry>): string {
  return [...overrides]
    .map((o) => `${o.action} ${o.address}`)
    .sort()
    .join("\n");
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/**
 * A list URL must be https. Plain http is accepted only for a loopback host
 * (a local mirror or a test server), where there is no network to tamper on.
 */
export function checkListUrl(text: string): Result<URL, string> {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return err(`not a URL: ${JSON.stringify(text)}`);
  }
  if (u.protocol === "https:") return ok(u);
  if (u.protocol === "http:" && (LOOPBACK_HOSTS.has(u.hostname) || /^127\.\d+\.\d+\.\d+$/.test(u.hostname))) return ok(u);
  if (u.protocol === "http:") return err("must be https (plain http is accepted only for a loopback host such as 127.0.0.1)");
  return err(`must be an https URL, got ${u.protocol}`);
}
