import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parsePublicKey } from "../../../src-shared/encoding/base58";
import type { SanctionsList, SanctionsVerdict } from "../../ports/sanctions";

export interface LoadedList {
  source: string;
  /** sha256 of the sorted, de-duplicated addresses: the same list always has the same version. */
  version: string;
  count: number;
  loadedAt: number;
}

/**
 * Parses the OFAC per-asset list formats: one address per line with `#`
 * comments (.txt), or a JSON array of strings (.json). Entries that are not
 * Solana public keys are refused rather than silently dropped.
 */
export function parseSanctionsText(text: string): string[] {
  const trimmed = text.trim();
  let entries: string[];
  if (trimmed.startsWith("[")) {
    const parsed: unknown = JSON.parse(trimmed);
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === "string")) throw new Error("a JSON sanctions list must be an array of strings");
    entries = parsed as string[];
  } else {
    entries = trimmed.split(/\r?\n/).map((l) => l.replace(/#.*$/, "").trim()).filter((l) => l.length > 0);
  }
  for (const e of entries) if (!parsePublicKey(e).ok) throw new Error(`not a Solana address: ${JSON.stringify(e.slice(0, 60))}`);
  return [...new Set(entries)].sort();
}

export class FileSanctionsList implements SanctionsList {
  private addresses = new Set<string>();
  private info: LoadedList | null = null;

  constructor(private readonly file: string) {}

  load(now = Date.now()): LoadedList {
    const list = parseSanctionsText(readFileSync(this.file, "utf8"));
    this.addresses = new Set(list);
    this.info = { source: this.file, version: createHash("sha256").update(list.join("\n")).digest("hex").slice(0, 16), count: list.length, loadedAt: now };
    return this.info;
  }

  get loaded(): LoadedList | null {
    return this.info;
  }

  check(address: string): SanctionsVerdict {
    if (!this.info) throw new Error("no sanctions list loaded");
    return { listed: this.addresses.has(address), listVersion: this.info.version };
  }
}
