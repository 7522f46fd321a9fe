/**
 * The docs' tables of config keys, printed from the key table (keys.ts): the RELAY_* variables
 * in README.md ("Running it") and every key in docs/operations.md ("Configuration keys").
 * docs-table.test.ts checks that the docs hold exactly these tables between their markers.
 */
import { ABSENT, keyRows, type KeyRow } from "./declare";
import { RELAY_CONFIG_KEYS } from "./keys";

/** The variable that is no key: it names the file the keys come from. */
const CONFIG_FILE_ROW =
  '| `RELAY_CONFIG` | | none | A JSON config file with any of the keys in docs/operations.md, "Configuration keys"; the variables win over it. |';

function shownDefault({ key, decl }: KeyRow): string {
  if (decl.kind === "optional") return "none";
  if (decl.shownDefault !== undefined) return decl.shownDefault;
  const v = decl.default;
  if (v === null) return "none";
  if (v === ABSENT || typeof v === "function") throw new Error(`keys.ts: ${key} needs a shownDefault`);
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return `\`${String(v)}\``;
  return `\`${JSON.stringify(v)}\``;
}

const variable = ({ decl }: KeyRow): string => (decl.kind === "setting" && decl.env ? `\`${decl.env.name}\`` : "");

/** Every key: key, variable, default, meaning. */
export function keysTable(): string {
  const rows = keyRows(RELAY_CONFIG_KEYS).map((r) => `| \`${r.key}\` | ${variable(r)} | ${shownDefault(r)} | ${r.decl.doc} |`);
  return ["| key | variable | default | meaning |", "|---|---|---|---|", ...rows].join("\n");
}

/** The RELAY_* variables: variable, the key it sets, default, meaning. */
export function variablesTable(): string {
  const rows = keyRows(RELAY_CONFIG_KEYS)
    .filter((r) => variable(r) !== "")
    .map((r) => `| ${variable(r)} | \`${r.key}\` | ${shownDefault(r)} | ${r.decl.doc} |`);
  return ["| variable | key | default | meaning |", "|---|---|---|---|", CONFIG_FILE_ROW, ...rows].join("\n");
}

/** `doc` with the text between `<!-- config-table:NAME -->` and `<!-- /config-table:NAME -->` replaced by `table`. */
export function withTable(doc: string, name: string, table: string): string {
  const open = `<!-- config-table:${name} -->\n`;
  const close = `\n<!-- /config-table:${name} -->`;
  const from = doc.indexOf(open);
  const to = doc.indexOf(close);
  if (from < 0 || to < from) throw new Error(`no ${open.trim()} … ${close.trim()} markers`);
  return doc.slice(0, from + open.length) + table + doc.slice(to);
}
