/**
 * npm run ceremony -- <command> (docs/ceremony.md):
 *   init       --r1cs <file> --ptau <file> --contributors <file> (--beacon-slot <n> | --beacon-delay <48h>) [--rpc <url>] --out <dir> [--test-ptau] [--beacon-iterations-exp <n>]
 *   contribute --dir <dir> --name <name> --key <keypair.json> [--text <entropy> | --text-prompt]
 *   verify     --dir <dir> [--r1cs <file> --ptau <file>] [--rpc <url>] [--strict [--min-contributions <n>]]
 *   finalize   --dir <dir> (--rpc <url> | --beacon-hex <hex> [--beacon-block-slot <n>]) [--no-program] [--out <dir>]
 *   beacon     the same as finalize
 * Exit 0 on success, 1 when verify finds a bad link or a command fails, 2 on bad usage.
 */
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { httpRpc, parseDuration, slotAfter, slotTime } from "./beacon";
import { contribute, finalize, init, verify } from "./ceremony";
import { parseContributors } from "./keys";

class UsageError extends Error {}

const say = (line: string) => console.log(line);

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

function count(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${name} must be a whole number`);
  return Number(text);
}

/** Reads a line without echoing it: typed entropy must not stay on the screen or in a terminal log. */
async function promptHidden(question: string): Promise<string> {
  process.stderr.write(question);
  const muted = new Writable({ write: (_chunk, _enc, done) => done() });
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  try {
    return await new Promise<string>((resolve) => rl.question("", resolve));
  } finally {
    rl.close();
    process.stderr.write("\n");
  }
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      r1cs: { type: "string" },
      ptau: { type: "string" },
      contributors: { type: "string" },
      "beacon-slot": { type: "string" },
      "beacon-delay": { type: "string" },
      "beacon-iterations-exp": { type: "string" },
      "test-ptau": { type: "boolean" },
      rpc: { type: "string" },
      out: { type: "string" },
      dir: { type: "string" },
      name: { type: "string" },
      key: { type: "string" },
      text: { type: "string" },
      "text-prompt": { type: "boolean" },
      strict: { type: "boolean" },
      "min-contributions": { type: "string" },
      "beacon-hex": { type: "string" },
      "beacon-block-slot": { type: "string" },
      "no-program": { type: "boolean" },
    },
  });
  const rpc = values.rpc !== undefined ? httpRpc(values.rpc) : undefined;
  switch (command) {
    case "init": {
      const slotGiven = count(values["beacon-slot"], "beacon-slot");
      const delay = values["beacon-delay"];
      if ((slotGiven === undefined) === (delay === undefined)) throw new UsageError("give one of --beacon-slot <n> or --beacon-delay <duration, e.g. 48h>");
      let beacon: { slot: number; notBefore: string };
      if (delay !== undefined) {
        const ms = parseDuration(delay);
        if (ms === null) throw new UsageError(`--beacon-delay ${delay} is not a duration (e.g. 48h, 2d, 90m)`);
        if (rpc === undefined) throw new UsageError("--beacon-delay needs --rpc <url> to turn the delay into a slot (or give --beacon-slot)");
        beacon = await slotAfter(rpc, ms);
      } else {
        beacon = { slot: slotGiven!, notBefore: rpc !== undefined ? await slotTime(rpc, slotGiven!) : new Date().toISOString() };
      }
      await init({
        r1cs: required(values, "r1cs"),
        ptau: required(values, "ptau"),
        contributors: parseContributors(readFileSync(required(values, "contributors"), "utf8")),
        beacon,
        out: required(values, "out"),
        testPtau: values["test-ptau"] === true,
        iterationsExp: count(values["beacon-iterations-exp"], "beacon-iterations-exp"),
        say,
      });
      say(`announce: the beacon is the blockhash of the first block at or after slot ${beacon.slot} (expected ${beacon.notBefore})`);
      return 0;
    }
    case "contribute": {
      if (values.text !== undefined && values["text-prompt"] === true) throw new UsageError("give --text or --text-prompt, not both");
      const text = values["text-prompt"] === true ? await promptHidden("Type some random text (not shown, not stored) and press Enter: ") : values.text;
      await contribute({ dir: required(values, "dir"), name: required(values, "name"), key: required(values, "key"), text, say });
      return 0;
    }
    case "verify": {
      const problem = await verify({
        dir: required(values, "dir"),
        r1cs: values.r1cs,
        ptau: values.ptau,
        rpc,
        strict: values.strict === true ? { minContributions: count(values["min-contributions"], "min-contributions") ?? 3 } : undefined,
        say,
      });
      if (problem === null) {
        say(values.r1cs === undefined ? "OK (transcript and hashes; give --r1cs and --ptau to check every zkey with snarkjs)" : "OK: every link verifies");
        return 0;
      }
      const where = problem.index === undefined ? "" : problem.index === 0 ? " at the initial zkey" : ` at contribution ${problem.index}`;
      console.error(`FIRST BAD LINK${where} (${problem.what}): ${problem.message}`);
      return 1;
    }
    case "beacon":
    case "finalize": {
      const hex = values["beacon-hex"];
      if ((rpc === undefined) === (hex === undefined)) throw new UsageError("give one of --rpc <url> or --beacon-hex <hex> (tests)");
      await finalize({
        dir: required(values, "dir"),
        beacon: rpc !== undefined ? { rpc } : { hex: hex!, blockSlot: count(values["beacon-block-slot"], "beacon-block-slot") },
        program: values["no-program"] !== true,
        out: values.out,
        say,
      });
      return 0;
    }
    default:
      throw new UsageError(`unknown command ${command ?? "(none)"}: init, contribute, verify, finalize (or beacon)`);
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`ceremony: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(e instanceof UsageError || (e instanceof TypeError && "code" in e && String(e.code).startsWith("ERR_PARSE_ARGS")) ? 2 : 1);
  },
);
