import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { toHex } from "../../../src-shared/encoding/bytes";
import { poolTreeAddress } from "../../../src-shared/pool-program";
import { chainConnection } from "../../sdk/chain";
import { chainDepositAndSaveNote, type ChainDepositAnswer, type ChainDepositStage } from "../../sdk/chain-deposit";
import { depositAndSaveNote } from "../../sdk/deposit";
import type { Keypair } from "../../sdk/keypair";
import { createNote, describeNote, type DepositNote } from "../../sdk/note";
import { getNoteNullifier, getNoteProof, type NoteProofError } from "../../sdk/tree";
import { Exit, type CliContext, type ExitCode, type JsonValue } from "../context";
import { amountInput, keypairInput, mintInput, noteInput, programInput, resolvePath, rpcInput } from "../inputs";
import { str, type CommandSpec } from "../spec";

export const DEFAULT_NOTES_DIR = ".relay-notes";
const hex = (b: Uint8Array): string => `0x${toHex(b)}`;
export const noteOption = { type: "string", value: "file", help: "a deposit note written by `deposit`", required: true } as const;

/** Sortable, unique, and tells a human which pool and when, without opening the file. */
function defaultNoteName(note: DepositNote): string {
  const stamp = note.createdAt.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  return `${note.network}-${note.mint.slice(0, 8)}-${stamp}-${toHex(note.commitment).slice(0, 8)}.json`;
}

function noteJson(note: DepositNote, file: string): JsonValue {
  const s = describeNote(note);
  return {
    file,
    network: s.network,
    mint: s.mint,
    amount: s.amount,
    precommitment: s.precommitment,
    commitment: s.commitment,
    nullifierHash: s.nullifierHash,
    createdAt: s.createdAt,
    deposit: s.deposit ? { ...s.deposit } : null,
  };
}

/**
 * The default notes folder is usually inside a project checkout; a `*`
 * .gitignore in it keeps a `git add -A` from publishing deposit secrets.
 */
function guardNotesDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ignore = path.join(dir, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, "# deposit notes hold secrets: never commit them\n*\n", { mode: 0o600 });
}

export const deposit: CommandSpec = {
  name: "deposit",
  summary: "create a note, save it, and deposit its precommitment (sandbox pool, or on chain with --rpc)",
  details:
    `The note is written (mode 0600) before any funds move, then updated with the deposit's signature, status and leaf.\n` +
    "The deposit sends Poseidon(nullifier, secret); the pool computes the leaf from the amount it received, and the\n" +
    "CLI checks it is the note's own (exit 3 and the note is not marked deposited if it is not).\n" +
    "Without --rpc it goes through the relay's sandbox (POST /sandbox/deposit). With --rpc the wallet sends the pool\n" +
    "program's deposit instruction itself (it pays the fee and the rent of its receipt), waits for confirmation, reads\n" +
    "the program's DepositEvent from the logs, then waits up to 30 s for the relay (--url) to index the leaf.\n" +
    `Default file: ${DEFAULT_NOTES_DIR}/<network>-<mint>-<time>-<commitment>.json. The note holds the secrets that withdraw\n` +
    "the deposit: whoever has the file has the funds. Exit 1 when the deposit is `failed` (funds are in the vault; revert it).",
  options: {
    keypair: { type: "string", value: "file", help: "the depositing wallet's keypair file", required: true },
    mint: { type: "string", value: "address", help: "token mint of the pool", required: true },
    amount: { type: "string", value: "base units", help: "amount in base units", required: true },
    note: { type: "string", value: "file", help: `where to save the note (default under ${DEFAULT_NOTES_DIR}/)` },
    rpc: { type: "string", value: "url", help: "deposit on chain through this Solana JSON-RPC endpoint (e.g. http://127.0.0.1:8899) instead of the sandbox" },
    program: { type: "string", value: "id", help: "with --rpc: the pool program id (default FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ)" },
  },
  async run(ctx, values) {
    const kp = keypairInput(ctx, values);
    if (!kp.ok) return kp.code;
    const mint = mintInput(ctx, values);
    if (!mint.ok) return mint.code;
    const amount = amountInput(ctx, values);
    if (!amount.ok) return amount.code;
    const rpc = rpcInput(ctx, values);
    if (!rpc.ok) return rpc.code;
    if (!rpc.value && str(values, "program") !== undefined)
      return ctx.fail(Exit.Usage, "--program goes with --rpc (a sandbox deposit uses the relay's program)");
    const program = programInput(ctx, values);
    if (!program.ok) return program.code;
    const created = await createNote({ network: ctx.network, mint: mint.value, amount: amount.value, hasher: await ctx.hasher() });
    if (!created.ok) return ctx.fail(Exit.Usage, created.error);
    const given = str(values, "note");
    const file = resolvePath(ctx, given ?? path.join(DEFAULT_NOTES_DIR, defaultNoteName(created.value)));
    if (!given) {
      try {
        guardNotesDir(path.dirname(file));
      } catch (e) {
        return ctx.fail(Exit.LocalFile, `cannot prepare ${path.dirname(file)}: ${(e as Error).message}`);
      }
    }

    if (rpc.value) return depositOnChain(ctx, kp.value, created.value, file, rpc.value, program.value);
    const r = await depositAndSaveNote(ctx.client, kp.value, created.value, file);
    if (!r.ok) {
      const e = r.error;
      if (e.stage === "save") return ctx.fail(Exit.LocalFile, `note not saved, nothing sent: ${e.message}`);
      if (e.stage === "update") {
        // The deposit happened: whatever else fails, the user must see where it landed.
        ctx.note(
          `deposit ${e.note.deposit?.status} (signature ${e.note.deposit?.signature}, leaf ${e.note.deposit?.leafIndex}) but the note could not be updated`,
        );
        return ctx.fail(Exit.LocalFile, `${e.message}; ${e.noteFile} still holds the secrets`, { deposit: e.note.deposit ? { ...e.note.deposit } : null });
      }
      if (e.stage === "leaf") {
        const a = e.failure.answer;
        ctx.note(`deposit ${a.status} (signature ${a.signature}) but the pool's leaf is not this note's: the note cannot withdraw it`);
        ctx.note(`${e.noteFile} keeps the secrets, not marked deposited`);
        return ctx.apiFailure("deposit", e.failure);
      }
      if (e.noteFile) ctx.note(`the deposit's outcome is unknown; keep ${e.noteFile}: it holds the secrets if the funds moved`);
      return ctx.apiFailure("deposit", e.failure);
    }
    const note = r.value;
    const d = note.deposit!;
    const lines = [
      `note saved: ${file}`,
      `  it holds this deposit's secrets: whoever has the file can withdraw. Keep it offline and backed up.`,
      d.status === "indexed"
        ? `deposit indexed at leaf ${d.leafIndex}`
        : `deposit FAILED: the funds are in the pool vault; get them back with \`relay-cli revert --keypair <file> --deposit ${d.signature}\``,
      `signature: ${d.signature}`,
      `precommitment: ${hex(note.precommitment)}`,
      `commitment: ${hex(note.commitment)}`,
      `nullifierHash: ${hex(note.nullifierHash)}`,
    ];
    return ctx.done(lines, noteJson(note, file), d.status === "indexed" ? Exit.Ok : Exit.Refused);
  },
};

const CHAIN_STAGE_TEXT: Record<ChainDepositStage, string> = {
  check: "checking the pool and the wallet's balances",
  send: "sending the deposit transaction",
  confirm: "waiting for confirmation",
  event: "reading the program's deposit event",
};

/**
 * Waits until the relay's tree for the pool holds `leafIndex`, so `relay` can
 * run next; answers a line saying what happened. Never fails the deposit.
 */
async function waitForRelayIndex(
  ctx: CliContext,
  note: DepositNote,
  programId: string,
  leafIndex: number,
  timeoutMs = 30_000,
): Promise<{ indexed: boolean; line: string }> {
  const expectedTree = poolTreeAddress(programId, note.mint);
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    const r = await ctx.client.getMerkle(note.mint, note.network);
    if (!r.ok)
      return { indexed: false, line: `the relay at ${ctx.url} did not answer get_merkle (${r.error}); \`relay\` works once it has indexed leaf ${leafIndex}` };
    if (r.value.address !== expectedTree) {
      return {
        indexed: false,
        line: `the relay at ${ctx.url} serves ${note.network} tree ${r.value.address}, not this program's ${expectedTree}: is its ${note.network} bound to this RPC and program?`,
      };
    }
    if (r.value.json.nextIndex > leafIndex) return { indexed: true, line: `the relay at ${ctx.url} has indexed leaf ${leafIndex}` };
    if (Date.now() > deadline)
      return {
        indexed: false,
        line: `the relay at ${ctx.url} has not indexed leaf ${leafIndex} within ${timeoutMs / 1000} s (nextIndex ${r.value.json.nextIndex}); \`relay\` works once it has`,
      };
    if (!announced) ctx.note(`waiting for the relay to index leaf ${leafIndex}...`);
    announced = true;
    await new Promise((res) => setTimeout(res, 250));
  }
}

function chainJson(rpcUrl: string, programId: string, a: ChainDepositAnswer): JsonValue {
  return {
    rpc: rpcUrl,
    programId,
    nonce: a.nonce.toString(),
    receipt: a.receipt,
    slot: a.slot,
    amount: a.amount.toString(),
    ...(a.reason ? { reason: a.reason } : {}),
  };
}

/** `deposit --rpc`: the wallet's own deposit transaction; outputs and exit codes as the sandbox path. */
async function depositOnChain(ctx: CliContext, wallet: Keypair, created: DepositNote, file: string, rpcUrl: string, programId: string): Promise<ExitCode> {
  // The note names a relay network; one that runs the sandbox (which derives the same tree address) or another
  // program would never see this deposit. A relay that does not answer is no reason to stop a deposit.
  const detail = await ctx.client.networks();
  const bound = detail.ok ? detail.value.find((n) => n.name === ctx.network) : undefined;
  if (bound && (bound.sandbox || bound.programId !== programId)) {
    const what = bound.sandbox ? "its sandbox chain" : `program ${bound.programId}`;
    return ctx.fail(
      Exit.Usage,
      `the relay at ${ctx.url} runs ${ctx.network} on ${what}, not on program ${programId} at ${rpcUrl}: a note for ${ctx.network} could not be withdrawn there; nothing sent (give the --network, --url or --program that match)`,
    );
  }
  if (!detail.ok) ctx.note(`the relay at ${ctx.url} did not answer (${detail.error}); depositing anyway: the note is for ${ctx.network}`);
  const connection = chainConnection(rpcUrl);
  const r = await chainDepositAndSaveNote(connection, wallet, created, file, {
    hasher: await ctx.hasher(),
    programId,
    onStage: (s) => ctx.note(`${CHAIN_STAGE_TEXT[s]}...`),
  });
  if (!r.ok) {
    const e = r.error;
    if (e.stage === "save") return ctx.fail(Exit.LocalFile, `note not saved, nothing sent: ${e.message}`);
    if (e.stage === "update") {
      ctx.note(`deposit ${e.answer.status} (signature ${e.answer.signature}, leaf ${e.answer.leafIndex}) but the note could not be updated`);
      return ctx.fail(Exit.LocalFile, `${e.message}; ${e.noteFile} still holds the secrets`, { deposit: e.note.deposit ? { ...e.note.deposit } : null });
    }
    if (e.stage === "leaf") {
      const a = e.failure.answer;
      ctx.note(`deposit ${a.status} (signature ${a.signature}) but the program's leaf is not this note's: the note cannot withdraw it`);
      ctx.note(`${e.noteFile} keeps the secrets, not marked deposited`);
      return ctx.fail(Exit.Unreachable, `deposit: LeafMismatch: ${e.failure.message}`, { error: "LeafMismatch", signature: a.signature });
    }
    const f = e.failure;
    const details: Record<string, JsonValue> = { error: f.kind };
    if ("signature" in f) details.signature = f.signature;
    if (e.noteFile)
      ctx.note(
        f.kind === "expired"
          ? `nothing moved; ${e.noteFile} was never used and may be deleted`
          : `the deposit's outcome is unknown; keep ${e.noteFile}: it holds the secrets if the funds moved`,
      );
    switch (f.kind) {
      case "input":
        return ctx.fail(Exit.Usage, f.message, details);
      case "funds":
        return ctx.fail(
          Exit.Refused,
          `${f.message}; nothing sent (on the local validator: \`relay-cli airdrop --rpc ${rpcUrl} --keypair <file> --mint ${created.mint} --amount <n>\`)`,
          details,
        );
      case "pool":
      case "failed":
      case "expired":
        return ctx.fail(Exit.Refused, f.message, details);
      case "refused": {
        const tail = f.logs.slice(-4).map((l) => `  ${l}`);
        return ctx.fail(Exit.Refused, [`the RPC refused the deposit, nothing sent: ${f.message}`, ...tail].join("\n"), { ...details, logs: f.logs });
      }
      case "rpc":
      case "unknown":
      case "event":
      default:
        return ctx.fail(Exit.Unreachable, f.message, details);
    }
  }
  const { note, answer } = r.value;
  const d = note.deposit!;
  const relayLine = d.status === "indexed" ? await waitForRelayIndex(ctx, note, programId, d.leafIndex!) : null;
  const lines = [
    `note saved: ${file}`,
    `  it holds this deposit's secrets: whoever has the file can withdraw. Keep it offline and backed up.`,
    d.status === "indexed"
      ? `deposit inserted on chain at leaf ${d.leafIndex}`
      : `deposit FAILED (${answer.reason ?? "no leaf"}): the funds are in the pool vault; get them back with \`relay-cli revert --keypair <file> --deposit ${d.signature}\``,
    ...(relayLine ? [relayLine.line] : []),
    `signature: ${d.signature}`,
    `precommitment: ${hex(note.precommitment)}`,
    `commitment: ${hex(note.commitment)}`,
    `nullifierHash: ${hex(note.nullifierHash)}`,
  ];
  const json = {
    ...(noteJson(note, file) as { [k: string]: JsonValue }),
    chain: chainJson(rpcUrl, programId, answer),
    relayIndexed: relayLine ? relayLine.indexed : null,
  };
  return ctx.done(lines, json, d.status === "indexed" ? Exit.Ok : Exit.Refused);
}

export const merkle: CommandSpec = {
  name: "merkle",
  summary: "the pool's current tree: root, nextIndex, depth (get_merkle)",
  options: { mint: { type: "string", value: "address", help: "token mint of the pool", required: true } },
  async run(ctx, values) {
    const mint = mintInput(ctx, values);
    if (!mint.ok) return mint.code;
    const r = await ctx.client.getMerkle(mint.value, ctx.network);
    if (!r.ok) return ctx.apiFailure("get_merkle", r);
    const { address, json } = r.value;
    return ctx.done([`tree: ${address}`, `root: ${hex(json.root)}`, `nextIndex: ${json.nextIndex}`, `depth: ${json.depth}`], {
      address,
      json: { root: Array.from(json.root), nextIndex: json.nextIndex, depth: json.depth },
      rootHex: hex(json.root),
    });
  },
};

/** How a failed get_proof check ends a command; shared by `proof`, `prove` and `relay`. */
export function noteProofFailure(ctx: CliContext, e: NoteProofError): ExitCode {
  if (e.kind === "api") return ctx.apiFailure("get_proof", e.failure);
  if (e.kind === "no-leaf") return ctx.fail(Exit.Refused, e.message);
  if (e.kind === "unstable") return ctx.fail(Exit.Refused, e.message);
  if (e.kind === "inconsistent") return ctx.fail(Exit.ProofMismatch, `THE RELAY'S ANSWERS ARE INCONSISTENT: ${e.message}`, { error: "InconsistentRelay" });
  return ctx.fail(Exit.ProofMismatch, `PROOF DOES NOT VERIFY: ${e.message}`);
}

/** The options and run of a command that reads one note (--note) and acts on it. */
function onNote(act: (ctx: CliContext, note: DepositNote) => Promise<ExitCode>): Pick<CommandSpec, "options" | "run"> {
  return {
    options: { note: noteOption },
    async run(ctx, values) {
      const note = await noteInput(ctx, values);
      if (!note.ok) return note.code;
      return act(ctx, note.value);
    },
  };
}

export const proof: CommandSpec = {
  name: "proof",
  summary: "fetch the Merkle proof of a note's leaf and verify it locally with Poseidon",
  details: "Exit 5 when the relay's path does not rebuild its own root: do not build a withdrawal on it.",
  ...onNote(async (ctx, note) => {
    const r = await getNoteProof(ctx.client, note, { hasher: await ctx.hasher() });
    if (!r.ok) return noteProofFailure(ctx, r.error);
    const p = r.value;
    return ctx.done(
      [
        `leaf ${p.leafIndex} of ${note.mint} on ${note.network}: proof verified locally`,
        `root: ${hex(p.root)}`,
        `nextIndex: ${p.nextIndex}`,
        `tree: ${p.address}`,
      ],
      {
        verified: true,
        address: p.address,
        leafIndex: p.leafIndex,
        leaf: hex(p.leaf),
        root: hex(p.root),
        nextIndex: p.nextIndex,
        path: p.path.map(hex),
        indices: p.indices,
      },
    );
  }),
};

export const nullifier: CommandSpec = {
  name: "nullifier",
  summary: "whether a note was already withdrawn (get_nullifier of its nullifierHash)",
  ...onNote(async (ctx, note) => {
    const r = await getNoteNullifier(ctx.client, note);
    if (!r.ok) return ctx.apiFailure("get_nullifier", r);
    const human = r.value.address === null ? "not spent" : `spent (nullifier account ${r.value.address})`;
    return ctx.done([`nullifierHash ${hex(note.nullifierHash)}: ${human}`], {
      nullifierHash: hex(note.nullifierHash),
      spent: r.value.address !== null,
      address: r.value.address,
      json: r.value.json,
    });
  }),
};
