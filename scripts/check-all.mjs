// The checks `npm run test:all` runs before the tests (issue 29, target 6). tsc, eslint, prettier,
// depcruise, the SBF rebuild and the console build each use one core, and none reads what
// another writes, so they run side by side (as many at once as there are cores, CHECK_JOBS to
// change it). Each one's output is printed whole when it ends, under its name, so interleaved
// runs never mix lines; the summary names every check that failed and the script fails if any did.
//
//   node scripts/check-all.mjs            run them all
//   node scripts/check-all.mjs --list     print the checks
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";

// Installers first and alone: they may apt-get install what the checks and the tests need.
const SETUP = [
  ["ensure-chromium", "node scripts/ensure-chromium.mjs"],
  ["ensure-toolchain", "node scripts/ensure-toolchain.mjs"],
];

// Longest first (their times are in docs/benchmarks.md, "CI time"), so the last ones to start are short.
const CHECKS = [
  ["typecheck:node", "tsc -p tsconfig.node.json --noEmit"],
  ["eslint", "eslint ."],
  ["prettier", "prettier --check ."],
  ["typecheck:web", "tsc -p tsconfig.web.json --noEmit"],
  ["lint:layers", "npm run --silent lint:layers"],
  ["build:programs --check", "npm run --silent build:programs -- --check"],
  ["build", "electron-vite build"],
];

if (process.argv.includes("--list")) {
  for (const [name, cmd] of [...SETUP, ...CHECKS]) console.log(`${name}: ${cmd}`);
  process.exit(0);
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
// npm puts node_modules/.bin on PATH for scripts; the same when this file is run by hand. The checks
// write to a pipe, so they would drop their colours even on a terminal: keep them when ours is one.
const env = { ...process.env, PATH: `${process.cwd()}/node_modules/.bin:${process.env.PATH}` };
if (process.stdout.isTTY && env.FORCE_COLOR === undefined) env.FORCE_COLOR = "1";

const t0 = Date.now();
for (const [name, cmd] of SETUP) {
  const started = Date.now();
  const r = spawnSync(cmd, { shell: true, stdio: "inherit", env });
  if (r.status !== 0) {
    console.error(`\n✗ ${name} failed (exit ${r.status ?? r.signal}): ${cmd}`);
    process.exit(1);
  }
  console.log(`✓ ${name} (${seconds(Date.now() - started)})`);
}

function run([name, cmd]) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, { shell: true, env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks = [];
    child.stdout.on("data", (d) => chunks.push(d));
    child.stderr.on("data", (d) => chunks.push(d));
    child.on("close", (code, signal) => {
      const ms = Date.now() - started;
      const ok = code === 0;
      const output = Buffer.concat(chunks).toString("utf8").trimEnd();
      console.log(`\n${ok ? "✓" : "✗"} ${name} (${seconds(ms)}${ok ? "" : `, exit ${code ?? signal}`}): ${cmd}`);
      if (output) console.log(output);
      resolve({ name, cmd, ok, ms });
    });
  });
}

const jobs = Math.max(1, Number(process.env.CHECK_JOBS) || availableParallelism());
const queue = [...CHECKS];
const results = [];
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) results.push(await run(next));
  }),
);

const failed = results.filter((r) => !r.ok);
console.log(`\nchecks: ${results.length - failed.length}/${results.length} passed in ${seconds(Date.now() - t0)} (${jobs} at once)`);
for (const r of CHECKS.map(([name]) => results.find((x) => x.name === name)))
  console.log(`  ${r.ok ? "✓" : "✗"} ${r.name.padEnd(24)} ${seconds(r.ms).padStart(8)}`);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.map((r) => r.name).join(", ")} (their output is above, under their names)`);
  process.exit(1);
}
