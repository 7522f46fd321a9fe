import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** Writes `text` to a config file in a fresh temporary folder and returns its path. */
export function configFileWith(text: string): string {
  const f = path.join(mkdtempSync(path.join(tmpdir(), "cfg-")), "c.json");
  writeFileSync(f, text);
  return f;
}

/** The environment that points loadConfig at a config file holding `content` as JSON. */
export const withConfigFile = (content: unknown): { RELAY_CONFIG: string } => ({ RELAY_CONFIG: configFileWith(JSON.stringify(content)) });
