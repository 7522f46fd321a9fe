import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "electron-vite";
import { consoleCspMeta } from "./vite.console.config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * Desktop build: main (ESM, hosts the relay server in-process), preload (CJS: a
 * sandboxed preload cannot be an ES module) and the renderer (the operator console,
 * the same source that vite.console.config.ts builds for the browser).
 * Dependencies stay external in main; node_modules ships next to out/.
 */
export default defineConfig({
  main: {
    build: {
      outDir: here("./out/main"),
      lib: {
        entry: {
          index: here("./src-main/index.ts"),
          // The relay's proof-verifier worker thread, loaded by the in-process server
          // from `./verify-worker.js` next to the bundle (see worker-pool.ts).
          "verify-worker": here("./src-server/adapters/verifier-groth16/verify-worker.ts"),
          // The sandbox chain's frontier lane (adapters/frontier-lane/lane.ts), loaded from `./lane-worker.js` the same way.
          "lane-worker": here("./src-server/adapters/frontier-lane/lane-worker.ts"),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: here("./out/preload"),
      lib: { entry: here("./src-preload/index.ts"), formats: ["cjs"] },
      rolldownOptions: { output: { entryFileNames: "[name].cjs" } },
    },
  },
  renderer: {
    root: here("./src-renderer"),
    plugins: [react(), consoleCspMeta()],
    build: {
      outDir: here("./out/renderer"),
      rolldownOptions: { input: here("./src-renderer/index.html") },
    },
  },
});
