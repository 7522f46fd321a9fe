/**
 * Runs one benchmark case in this (child) process and prints its result as
 * one JSON line after RESULT_MARKER on stdout; progress goes to stderr.
 * Usage: node --import tsx bench/worker.ts <case> [--quick]
 */
import { CASES } from "./cases/index";
import { RESULT_MARKER } from "./lib/metric";

const [name, ...rest] = process.argv.slice(2);
const load = name ? CASES[name] : undefined;
if (!load) {
  console.error(`unknown case ${name}; known: ${Object.keys(CASES).join(", ")}`);
  process.exit(2);
}
const c = await load();
const result = await c.run({ quick: rest.includes("--quick"), log: (m) => process.stderr.write(`  [${name}] ${m}\n`) });
process.stdout.write(`${RESULT_MARKER}${JSON.stringify(result)}\n`);
// Libraries (sql.js, circomlibjs) may hold handles; the result is out, so leave now.
process.exit(0);
