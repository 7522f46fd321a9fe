import path from "node:path";
import { fileURLToPath } from "node:url";
import { runSanctionsCli } from "./sanctions-commands";

/** `npm run sanctions -- <command>`: operator edits of the sanctions list (see --help). */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
process.exitCode = await runSanctionsCli(
  process.argv.slice(2),
  {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    env: process.env,
  },
  { defaultDataDir: path.join(root, "data") },
);
