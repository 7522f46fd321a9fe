import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The repository's root folder, from sources and from bundles alike. From sources
 * (tsx, vitest) this module is src-server/repo-path.ts, one folder down; in a bundle it
 * is inlined into out/server/*.js (`npm start`, scripts/build-server.mjs) or
 * out/main/*.js (the desktop app), two folders down. Files the relay reads from the
 * repository (resources/, programs/) are found from here, not from the importing
 * module's own URL, which a bundle moves.
 */
const ROOT = fileURLToPath(new URL(import.meta.url.endsWith(".ts") ? "../" : "../../", import.meta.url));

/** `parts` joined under the repository's root. */
export function repoPath(...parts: string[]): string {
  return path.join(ROOT, ...parts);
}
