import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The console's content policy, as a <meta> tag in the built index.html, so it holds
 * wherever the console is served from. Its own code and styles, its own API, nothing
 * inline. (frame-ancestors cannot be set by <meta>; the desktop shell sends it as a
 * header, see src-main/security.ts.) Not in dev: the React refresh preamble is inline.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join("; ");

export function consoleCspMeta(): Plugin {
  return {
    name: "console-csp-meta",
    apply: "build",
    transformIndexHtml: () => [{ tag: "meta", attrs: { "http-equiv": "Content-Security-Policy", content: CONSOLE_CSP }, injectTo: "head-prepend" }],
  };
}

/**
 * Headless console: the renderer of the desktop app, built for any browser and
 * served by the relay at /console/ (see scripts/start.mjs and src-server/main.ts).
 */
export default defineConfig({
  root: here("./src-renderer"),
  base: "/console/",
  plugins: [react(), consoleCspMeta()],
  // Only VITE_-prefixed variables reach the bundle; never put secrets there.
  envDir: here("./src-renderer"),
  build: {
    outDir: here("./out/console"),
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
  },
});
