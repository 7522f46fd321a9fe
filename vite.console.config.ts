import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * Headless console: the renderer of the desktop app, built for any browser and
 * served by the relay at /console/ (see scripts/start.mjs and src-server/main.ts).
 */
export default defineConfig({
  root: here("./src-renderer"),
  base: "/console/",
  plugins: [react()],
  // Only VITE_-prefixed variables reach the bundle; never put secrets there.
  envDir: here("./src-renderer"),
  build: {
    outDir: here("./out/console"),
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
  },
});
