// Vitest reporter: where a run's time goes, file by file (issue 29, target 6). Vitest's JSON
// reporter spans a file from its first test's start to its last test's end, so a file that spends
// its time in beforeAll (a validator, relays, a PostgreSQL server) or importing looks cheap there;
// this one keeps each file's import, hooks and tests apart, and its span on the wall clock.
// `npm run test:timings` prints what it writes.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export const DEFAULT_TIMINGS_FILE = "out/vitest-timings.json";

export default class TimingsReporter {
  constructor(options = {}) {
    this.outputFile = options.outputFile ?? process.env.VITEST_TIMINGS_FILE ?? DEFAULT_TIMINGS_FILE;
    this.queued = new Map();
    this.ended = new Map();
  }

  onInit(ctx) {
    this.ctx = ctx;
    this.start = Date.now();
  }

  onTestModuleQueued(module) {
    this.queued.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module) {
    this.ended.set(module.moduleId, Date.now());
  }

  onTestRunEnd(testModules) {
    const end = Date.now();
    const root = this.ctx?.config?.root ?? process.cwd();
    const files = testModules.map((m) => {
      const d = m.diagnostic();
      const tests = [...m.children.allTests()].map((t) => ({
        name: t.fullName,
        state: t.result().state,
        ms: Math.round(t.diagnostic()?.duration ?? 0),
      }));
      const queued = this.queued.get(m.moduleId) ?? this.start;
      return {
        file: path.relative(root, m.moduleId),
        state: m.state(),
        // Import of the file and what it imports (collect), vitest's own set-up, then tests and hooks.
        importMs: Math.round(d.collectDuration + d.setupDuration),
        prepareMs: Math.round(d.prepareDuration + d.environmentSetupDuration),
        runMs: Math.round(d.duration),
        testsMs: tests.reduce((s, t) => s + t.ms, 0),
        // From queued to done, waiting for a worker included.
        spanMs: (this.ended.get(m.moduleId) ?? end) - queued,
        startMs: queued - this.start,
        tests,
      };
    });
    const out = path.resolve(root, this.outputFile);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify({ startTime: this.start, wallMs: end - this.start, workers: this.ctx?.config?.maxWorkers ?? null, files }, null, 1));
  }
}
