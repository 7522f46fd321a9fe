import { defineConfig } from "vitest/config";

/** The root config only collects src-*, tests and e2e; this one runs the bench smoke test. */
export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["bench/**/*.test.ts"],
    testTimeout: 600_000,
    pool: "forks",
  },
});
