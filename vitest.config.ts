import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src-*/**/*.test.ts", "tests/**/*.test.ts", "programs/**/*.test.ts", "scripts/**/*.test.ts", "e2e/**/*.e2e.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
