import { defineConfig } from "vitest/config";
import { DurationSequencer } from "./tests/support/global-sequencer";

export default defineConfig({
  test: {
    include: ["src-*/**/*.test.ts", "tests/**/*.test.ts", "programs/**/*.test.ts", "tools/**/*.test.ts", "scripts/**/*.test.ts", "e2e/**/*.e2e.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default is one worker on two cores (cores - 1). Most test files wait on a relay or
    // validator process, not on their own CPU: two workers keep both cores busy.
    maxWorkers: 2,
    // One PostgreSQL server for the run, started when the first file asks for it (issue 29, target 6).
    globalSetup: ["tests/support/global-postgres.ts"],
    // A fresh clone's files start longest first, by a whole run's recorded durations (issue 29, target 6).
    sequence: { sequencer: DurationSequencer },
  },
});
