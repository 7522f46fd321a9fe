import { parseArgs, type ParseArgsConfig } from "node:util";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { isNetwork } from "../../src-shared/networks";
import { RelayClient } from "../sdk/http";
import { ofacSignature, revert } from "./commands/compliance";
import { health, version } from "./commands/meta";
import { deposit, merkle, nullifier, proof } from "./commands/pool";
import { noteCommand } from "./commands/note";
import { quote, swapPool } from "./commands/swap";
import { airdrop, balance, keygen, loginCommand } from "./commands/wallet";
import { prove } from "./commands/withdraw";
import { relay } from "./commands/relay";
import { Exit, createContext, type CliIo, type ExitCode } from "./context";
import { GLOBAL_OPTIONS, str, type CommandSpec, type OptionSpec, type ParsedValues } from "./spec";

export const DEFAULT_URL = "http://127.0.0.1:8080";

export const COMMANDS: readonly CommandSpec[] = [
  keygen,
  loginCommand,
  airdrop,
  deposit,
  relay,
  prove,
  quote,
  swapPool,
  revert,
  ofacSignature,
  balance,
  merkle,
  proof,
  nullifier,
  noteCommand,
  health,
  version,
];

const EXIT_HELP = `exit codes: 0 ok, 1 the relay refused or answered "not done", 2 usage, 3 relay unreachable or malformed answer,
            4 local file problem, 5 the relay's Merkle proof does not verify, 6 the withdrawal proof could not be built`;

type ParseOptions = NonNullable<ParseArgsConfig["options"]>;

const toParseOptions = (specs: Record<string, OptionSpec>): ParseOptions =>
  Object.fromEntries(Object.entries(specs).map(([name, o]) => [name, { type: o.type }]));

function optionLines(specs: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(specs).map(([name, o]) => [`--${name}${o.value ? ` <${o.value}>` : ""}`, `${o.help}${o.required ? " (required)" : ""}`] as const);
  const width = Math.max(0, ...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`);
}

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "usage: relay-cli <command> [options]",
    "",
    "A wallet developer's client for the Private Withdrawal Relay: keys, login, deposits (sandbox or on chain), notes, proofs, withdrawals, reverts and compliance signatures.",
    "",
    "commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "global options:",
    ...optionLines(GLOBAL_OPTIONS),
    "",
    EXIT_HELP,
    "",
    "`relay-cli <command> --help` shows a command's options.",
  ].join("\n");
}

export function commandHelp(c: CommandSpec): string {
  const own = Object.entries(c.options);
  const synopsis = own.map(([name, o]) => {
    const text = `--${name}${o.value ? ` <${o.value}>` : ""}`;
    return o.required ? text : `[${text}]`;
  });
  return [
    `usage: relay-cli ${c.name} ${synopsis.join(" ")}`.trimEnd(),
    "",
    `${c.summary}.`,
    ...(c.details ? ["", c.details] : []),
    ...(own.length ? ["", "options:", ...optionLines(c.options)] : []),
    "",
    "global options:",
    ...optionLines(GLOBAL_OPTIONS),
    "",
    EXIT_HELP,
  ].join("\n");
}

/**
 * Runs one CLI invocation and answers its exit code. Output goes through `io`
 * so tests can run the CLI in-process against a real relay.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const usageError = (message: string, command?: CommandSpec): ExitCode => {
    const hint = command
      ? `${commandHelp(command).split("\n")[0]}\nrun \`relay-cli ${command.name} --help\` for details`
      : "run `relay-cli --help` for the commands";
    io.stderr(`error: ${message}\n${hint}\n`);
    return Exit.Usage;
  };

  // First pass knows every option of every command, so a flag's value is never mistaken for the command.
  const everyOption: ParseOptions = toParseOptions(GLOBAL_OPTIONS);
  for (const c of COMMANDS) Object.assign(everyOption, toParseOptions(c.options));
  let first;
  try {
    first = parseArgs({ args: [...argv], options: everyOption, allowPositionals: true, strict: false });
  } catch (e) {
    return usageError((e as Error).message);
  }
  const name = first.positionals[0];
  if (name === undefined) {
    if (first.values.help === true) return (io.stdout(`${usage()}\n`), Exit.Ok);
    io.stderr(`${usage()}\n`);
    return Exit.Usage;
  }
  if (name === "help") return (io.stdout(`${usage()}\n`), Exit.Ok);
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) return usageError(`unknown command "${name}" (commands: ${COMMANDS.map((c) => c.name).join(", ")})`);

  let values: ParsedValues;
  try {
    const parsed = parseArgs({ args: [...argv], options: toParseOptions({ ...GLOBAL_OPTIONS, ...command.options }), allowPositionals: true, strict: true });
    if (parsed.positionals.length > 1) return usageError(`unexpected argument "${parsed.positionals[1]}"`, command);
    values = parsed.values as ParsedValues;
  } catch (e) {
    return usageError((e as Error).message, command);
  }
  if (values.help === true) return (io.stdout(`${commandHelp(command)}\n`), Exit.Ok);

  const url = str(values, "url") ?? io.env.RELAY_URL ?? DEFAULT_URL;
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http");
  } catch {
    return usageError(`--url ${url} is not an http(s) URL`);
  }
  const networkText = str(values, "network");
  const network = networkText ?? "mainnet";
  if (!isNetwork(network)) return usageError(`--network must be mainnet or devnet, not "${network}"`);
  const timeoutText = str(values, "timeout");
  if (timeoutText !== undefined && !/^[1-9][0-9]{0,6}$/.test(timeoutText)) return usageError("--timeout must be a positive number of milliseconds");
  const json = values.json === true;

  const client = new RelayClient({
    baseUrl: url,
    timeoutMs: timeoutText ? Number(timeoutText) : 10_000,
    // A person at a terminal would rather wait out a rate limit than retype the command.
    retryOn429: { maxRetries: 3, maxWaitMs: 60_000, onWait: (ms, path) => io.stderr(`rate limited on ${path}; retrying in ${Math.ceil(ms / 1000)} s\n`) },
  });
  const ctx = createContext(io, client, { url, network, networkGiven: networkText !== undefined, json, hasher: createPoseidonHasher });
  return command.run(ctx, values);
}
