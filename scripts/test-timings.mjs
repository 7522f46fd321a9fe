// Where a vitest run's time goes, file by file (issue 29, target 6): `npm run test:timings`.
//
//   node scripts/test-timings.mjs [report.json] [--top N] [--tests N] [--compare before.json]
//   node scripts/test-timings.mjs [report.json] --write-durations scripts/test-durations.json
//
// The report is what scripts/vitest-timings-reporter.mjs writes (out/vitest-timings.json, the
// default; `npm run test:all` writes it), or vitest's own `--reporter=json` output. Vitest's JSON
// spans a file from its first test to its last, so there a file's import and beforeAll/afterAll
// are missing (the "hooks" column stays empty): prefer the timings reporter's file.
import { readFileSync, writeFileSync } from "node:fs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [value] = args.splice(i, 2).slice(1);
  return value;
};
const top = Number(option("--top", "25"));
const topTests = Number(option("--tests", "15"));
const compare = option("--compare", null);
const writeDurations = option("--write-durations", null);
const file = args[0] ?? "out/vitest-timings.json";

/** Either report as { wallMs, workers, files: [{ file, ms, importMs, hooksMs, testsMs, tests: [{ name, ms }] }] }. */
function load(p) {
  let raw;
  try {
    raw = JSON.parse(readFileSync(p, "utf8"));
  } catch (e) {
    console.error(
      `cannot read ${p}: ${e.message}\nrun the tests first: npm run test:all, or npx vitest run --reporter=default --reporter=./scripts/vitest-timings-reporter.mjs`,
    );
    process.exit(1);
  }
  if (Array.isArray(raw.files)) {
    return {
      wallMs: raw.wallMs,
      workers: raw.workers,
      files: raw.files.map((f) => ({
        file: f.file,
        failed: f.state === "failed",
        ms: f.importMs + f.prepareMs + f.runMs,
        importMs: f.importMs,
        hooksMs: Math.max(0, f.runMs - f.testsMs),
        testsMs: f.testsMs,
        tests: f.tests,
      })),
    };
  }
  const cwd = `${process.cwd()}/`;
  const files = raw.testResults.map((r) => {
    const tests = r.assertionResults.map((t) => ({ name: t.fullName, ms: Math.round(t.duration ?? 0) }));
    return {
      file: r.name.startsWith(cwd) ? r.name.slice(cwd.length) : r.name,
      failed: r.status === "failed",
      ms: r.endTime - r.startTime,
      importMs: null,
      hooksMs: null,
      testsMs: tests.reduce((s, t) => s + t.ms, 0),
      tests,
    };
  });
  return { wallMs: Math.max(...raw.testResults.map((r) => r.endTime)) - raw.startTime, workers: null, files };
}

if (writeDurations) {
  // What tests/support/global-sequencer.ts orders a fresh clone's run by: each file's time, to 0.1 s.
  const files = Object.fromEntries(
    load(file)
      .files.sort((a, b) => a.file.localeCompare(b.file))
      .map((f) => [f.file, Math.round(f.ms / 100) * 100]),
  );
  writeFileSync(writeDurations, `${JSON.stringify({ from: "npm run test:timings -- --write-durations", files }, null, 2)}\n`); // as Prettier lays JSON out
  console.log(`wrote ${Object.keys(files).length} files' durations to ${writeDurations}`);
  process.exit(0);
}

const s = (ms) => (ms === null || ms === undefined ? "" : (ms / 1000).toFixed(1));
const pct = (part, whole) => `${((100 * part) / whole).toFixed(1)}%`;
const pad = (v, n) => String(v).padStart(n);

const report = load(file);
const before = compare ? load(compare) : null;
const beforeOf = new Map(before?.files.map((f) => [f.file, f]) ?? []);
const sum = report.files.reduce((a, f) => a + f.ms, 0);
const tests = report.files.reduce((a, f) => a + f.tests.length, 0);

console.log(`${file}: ${report.files.length} files, ${tests} tests`);
console.log(
  `wall ${s(report.wallMs)} s; sum of file time ${s(sum)} s (${(sum / report.wallMs).toFixed(2)} files at once on average${report.workers ? `, ${report.workers} workers` : ""})`,
);
if (before) {
  const bsum = before.files.reduce((a, f) => a + f.ms, 0);
  console.log(`before (${compare}): wall ${s(before.wallMs)} s, sum of file time ${s(bsum)} s`);
}

console.log(`\ntop ${top} files by file time (import + hooks + tests, seconds)`);
const head = `${pad("file", 7)} ${pad("share", 6)} ${pad("cum", 6)} ${pad("import", 6)} ${pad("hooks", 6)} ${pad("tests", 6)} ${pad("n", 4)}${before ? ` ${pad("before", 7)}` : ""}  path`;
console.log(head);
let cum = 0;
const sorted = [...report.files].sort((a, b) => b.ms - a.ms);
for (const f of sorted.slice(0, top)) {
  cum += f.ms;
  const b = beforeOf.get(f.file);
  console.log(
    `${pad(s(f.ms), 7)} ${pad(pct(f.ms, sum), 6)} ${pad(pct(cum, sum), 6)} ${pad(s(f.importMs), 6)} ${pad(s(f.hooksMs), 6)} ${pad(s(f.testsMs), 6)} ${pad(f.tests.length, 4)}${
      before ? ` ${pad(b ? s(b.ms) : "-", 7)}` : ""
    }  ${f.file}${f.failed ? "  FAILED" : ""}`,
  );
}

console.log("\nby folder");
const folders = new Map();
for (const f of report.files) {
  const parts = f.file.split("/");
  const key = parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0];
  const g = folders.get(key) ?? { ms: 0, n: 0 };
  g.ms += f.ms;
  g.n += 1;
  folders.set(key, g);
}
for (const [key, g] of [...folders].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)) {
  console.log(`${pad(s(g.ms), 7)} ${pad(pct(g.ms, sum), 6)} ${pad(g.n, 4)} files  ${key}`);
}

console.log(`\ntop ${topTests} tests (seconds)`);
const all = report.files.flatMap((f) => f.tests.map((t) => ({ ...t, file: f.file })));
for (const t of all.sort((a, b) => b.ms - a.ms).slice(0, topTests)) console.log(`${pad(s(t.ms), 7)}  ${t.file} > ${t.name}`);
