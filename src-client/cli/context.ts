import type { FieldHasher } from "../../src-shared/crypto/hasher";
import type { Network } from "../../src-shared/networks";
import type { ApiFailure } from "../sdk/api-result";
import type { RelayClient } from "../sdk/http";

/** Exit codes, stable for scripts (documented in `--help` and docs/sdk.md). */
export const Exit = {
  Ok: 0,
  /** The relay answered with an error, or answered that the operation did not succeed. */
  Refused: 1,
  /** Bad command line. */
  Usage: 2,
  /** The relay could not be reached, timed out, or answered something malformed. */
  Unreachable: 3,
  /** A local file (keypair, note) could not be read or written. */
  LocalFile: 4,
  /** The relay's Merkle proof does not rebuild its root: do not prove or withdraw with it. */
  ProofMismatch: 5,
  /** The withdrawal proof could not be built, or would not be the one the relay checks. */
  ProveFailed: 6,
} as const;

export type ExitCode = (typeof Exit)[keyof typeof Exit];

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Asks the person at the terminal and answers their line; null when nobody
   * can answer (stdin is not a terminal): a command that needs a yes then
   * stops and asks for --yes.
   */
  prompt?(question: string): Promise<string | null>;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

/** Everything a command needs; built once per run from the global flags. */
export interface CliContext {
  io: CliIo;
  client: RelayClient;
  url: string;
  network: Network;
  /** True when --network was given, so a command can refuse a note of another network. */
  networkGiven: boolean;
  json: boolean;
  hasher(): Promise<FieldHasher>;
  /**
   * Prints the result (human lines or one JSON document on stdout) and answers
   * `code`: a non-zero code here is an answer the caller should act on (a
   * failed deposit, an unhealthy relay), printed like any result.
   */
  done(human: string | string[], json: JsonValue, code?: ExitCode): ExitCode;
  /** Prints an error to stderr (JSON when --json) and answers its exit code. */
  fail(code: ExitCode, message: string, details?: Record<string, JsonValue>): ExitCode;
  /** Maps an SDK failure to the right exit code and message. */
  apiFailure(what: string, failure: ApiFailure): ExitCode;
  /** Progress and warnings: stderr, so --json stdout stays one document. */
  note(text: string): void;
}

export function createContext(
  io: CliIo,
  client: RelayClient,
  opts: { url: string; network: Network; networkGiven: boolean; json: boolean; hasher: () => Promise<FieldHasher> },
): CliContext {
  const ctx: CliContext = {
    io,
    client,
    url: opts.url,
    network: opts.network,
    networkGiven: opts.networkGiven,
    json: opts.json,
    hasher: opts.hasher,
    done(human, json, code = Exit.Ok) {
      if (opts.json) io.stdout(`${JSON.stringify(json, null, 2)}\n`);
      else io.stdout(`${(Array.isArray(human) ? human : [human]).join("\n")}\n`);
      return code;
    },
    fail(code, message, details = {}) {
      if (opts.json) io.stderr(`${JSON.stringify({ ok: false, exitCode: code, message, ...details })}\n`);
      else io.stderr(`error: ${message}\n`);
      return code;
    },
    apiFailure(what, f) {
      // A garbled answer, or a deposit answered with a leaf the note cannot open, is a relay fault like no answer at all.
      const unreachable = f.status === 0 || f.error === "BadResponse" || f.error === "LeafMismatch";
      const detail = f.message ? `: ${f.message}` : "";
      const retry = f.retryAfterSec !== undefined ? ` (retry after ${f.retryAfterSec} s)` : "";
      const message = unreachable ? `${what}: ${f.error}${detail}` : `${what}: relay answered ${f.status} ${f.error}${detail}${retry}`;
      const details: Record<string, JsonValue> = { status: f.status, error: f.error };
      if (f.message) details.relayMessage = f.message;
      if (f.retryAfterSec !== undefined) details.retryAfterSec = f.retryAfterSec;
      return ctx.fail(unreachable ? Exit.Unreachable : Exit.Refused, message, details);
    },
    note(text) {
      io.stderr(`${text}\n`);
    },
  };
  return ctx;
}
