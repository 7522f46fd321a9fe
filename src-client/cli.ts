import { runCli } from "./cli/run";

/** `npm run relay-cli -- <command> ...`; see `relay-cli --help` and docs/sdk.md. */
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
  // `npm run` moves to the package root; INIT_CWD is where the user typed the command, so relative paths mean what they wrote.
  cwd: process.env.INIT_CWD ?? process.cwd(),
});
// exitCode, not exit(): lets stdout drain when it is a pipe.
process.exitCode = code;
