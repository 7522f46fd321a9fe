import type { CliContext, ExitCode } from "./context";

export interface OptionSpec {
  type: "string" | "boolean";
  /** Shown in help as `--name <value>`. */
  value?: string;
  help: string;
  required?: boolean;
}

export type ParsedValues = Record<string, string | boolean | undefined>;

export interface CommandSpec {
  name: string;
  summary: string;
  /** Extra paragraphs for `<command> --help`. */
  details?: string;
  options: Record<string, OptionSpec>;
  run(ctx: CliContext, values: ParsedValues): Promise<ExitCode>;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  url: { type: "string", value: "url", help: "relay base URL (default $RELAY_URL or http://127.0.0.1:8080)" },
  network: { type: "string", value: "name", help: "mainnet or devnet (default mainnet)" },
  json: { type: "boolean", help: "machine-readable output: one JSON document on stdout, errors as JSON on stderr" },
  timeout: { type: "string", value: "ms", help: "per-request timeout in milliseconds (default 10000)" },
  help: { type: "boolean", help: "show help" },
};

/** `values[name]` as a string, when the option was given. */
export const str = (values: ParsedValues, name: string): string | undefined => {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
};
