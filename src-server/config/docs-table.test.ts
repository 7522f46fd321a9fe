import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { keysTable, variablesTable, withTable } from "./docs-table";

/** Each doc and the table it holds; UPDATE_CONFIG_DOCS=1 writes them instead of checking. */
const DOCS = [
  { file: new URL("../../README.md", import.meta.url), name: "variables", table: variablesTable },
  { file: new URL("../../docs/operations.md", import.meta.url), name: "keys", table: keysTable },
];

describe("the docs' config tables (keys.ts)", () => {
  it.each(DOCS)("$name in $file.pathname is the table the key declarations print", ({ file, name, table }) => {
    const doc = readFileSync(file, "utf8");
    const expected = withTable(doc, name, table());
    if (process.env.UPDATE_CONFIG_DOCS === "1" && doc !== expected) writeFileSync(file, expected);
    else expect(doc, "run UPDATE_CONFIG_DOCS=1 npx vitest run src-server/config/docs-table.test.ts").toBe(expected);
  });

  it("lists every RELAY_* variable the config code names", () => {
    const dir = new URL("./", import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    const source = files.map((f) => readFileSync(new URL(f, dir), "utf8")).join("\n");
    const named = [...source.matchAll(/"(RELAY_[A-Z_]+)"|env\.(RELAY_[A-Z_]+)/g)].map((m) => m[1] ?? m[2]);
    expect(named.length).toBeGreaterThan(10);
    for (const v of new Set(named)) expect(variablesTable(), v).toContain(`| \`${v}\` |`);
  });
});
