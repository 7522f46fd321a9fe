/**
 * The command line of a header generator: write the generated text, or with --check exit 1
 * when the committed file differs from it (what CI and a reviewer run after a source change).
 */
import { readFileSync, writeFileSync } from "node:fs";

export function writeOrCheckGenerated(file: string, text: string, regenerate: string, argv: readonly string[] = process.argv): void {
  if (!argv.includes("--check")) {
    writeFileSync(file, text);
    console.log(`wrote ${file}`);
    return;
  }
  let committed = "";
  try {
    committed = readFileSync(file, "utf8");
  } catch {
    /* missing counts as stale */
  }
  if (committed !== text) {
    console.error(`${file} is stale; run: ${regenerate}`);
    process.exit(1);
  }
  console.log(`${file} is up to date`);
}
