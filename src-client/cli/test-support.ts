/**
 * Test code shared by the CLI's and the SDK's tests (a test-support.ts file
 * counts as a test for the layer rules): relay-cli run in-process, with what
 * it printed collected instead of written out.
 */
import type { CliIo } from "./context";
import { runCli } from "./run";

export interface CapturedRun {
  code: number;
  out: string;
  err: string;
}

/** An io that keeps stdout and stderr; `answer` is a person's reply to a confirmation (without one there is no terminal to ask). */
export function captureIo(cwd: string, url: string | undefined, answer?: string): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    ...(answer !== undefined ? { prompt: (q: string) => ((err += q), Promise.resolve(answer)) } : {}),
    env: url === undefined ? {} : { RELAY_URL: url },
    cwd,
    out: () => out,
    err: () => err,
  };
}

/** One relay-cli run against the relay at `url` (undefined: no RELAY_URL) from `cwd`. */
export async function runCaptured(argv: readonly string[], cwd: string, url: string | undefined, answer?: string): Promise<CapturedRun> {
  const io = captureIo(cwd, url, answer);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}
