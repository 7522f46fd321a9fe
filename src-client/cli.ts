import { createInterface } from "node:readline/promises";
import { runCli } from "./cli/run";

/** A question on stderr (stdout stays the command's output), answered on a terminal's stdin. */
async function prompt(question: string): Promise<string | null> {
  if (!process.stdin.isTTY) return null;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/** `npm run relay-cli -- <command> ...`; see `relay-cli --help` and docs/sdk.md. */
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  prompt,
  env: process.env,
  // `npm run` moves to the package root; INIT_CWD is where the user typed the command, so relative paths mean what they wrote.
  cwd: process.env.INIT_CWD ?? process.cwd(),
});
// exitCode, not exit(): lets stdout drain when it is a pipe.
process.exitCode = code;
