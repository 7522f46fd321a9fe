import path from "node:path";
import { FileListSource } from "./file-source";
import type { ListSource } from "./source";
import { UrlListSource } from "./url-source";

export interface SanctionsSourceSettings {
  /** When set, the list is fetched from here and cached in the data dir; `file` is then ignored. */
  url: string | null;
  file: string;
  fetchTimeoutSec: number;
}

/** The list source the settings name: the relay and the `npm run sanctions` CLI read the same one. */
export function configuredListSource(settings: SanctionsSourceSettings, dataDir: string): ListSource {
  return settings.url
    ? new UrlListSource(settings.url, { timeoutMs: settings.fetchTimeoutSec * 1000, cacheFile: path.join(dataDir, "sanctions", "url-cache.json") })
    : new FileListSource(settings.file);
}
