import { writeFileSync } from "node:fs";
import { PROTOCOL_VERSION, PUBLIC_SIGNAL_NAMES, U64_MAX } from "../../../src-shared/crypto/protocol";
import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { toHex } from "../../../src-shared/encoding/bytes";
import { redactUrl } from "../../../src-shared/redact-url";
import type { DepositNote } from "../../sdk/note";
import { verifyWithdrawalProof, type ProveError, type ProveOptions, type WithdrawalProof } from "../../sdk/prove";
import { DEFAULT_DECOYS, type NoteLookup } from "../../sdk/lookup";
import { prepareWithdrawal, type InspectWarning, type WithdrawError, type WithdrawStage } from "../../sdk/withdraw";
import { Exit, type CliContext, type ExitCode, type JsonValue } from "../context";
import { noteInput, programInput, resolvePath, rpcInput, type Input } from "../inputs";
import { str, type CommandSpec, type OptionSpec, type ParsedValues } from "../spec";
import { noteOption, noteProofFailure } from "./pool";

const hex = (b: Uint8Array): string => `0x${toHex(b)}`;

export const recipientOption: OptionSpec = { type: "string", value: "address", help: "the wallet that receives the withdrawal (base58)", required: true };
export const artifactOptions: Record<string, OptionSpec> = {
  wasm: { type: "string", value: "file", help: "withdraw circuit wasm (default resources/zk/withdraw.wasm)" },
  zkey: { type: "string", value: "file", help: "withdraw proving key (default resources/zk/withdraw.zkey)" },
};

export function recipientInput(ctx: CliContext, values: ParsedValues): Input<string> {
  const recipient = str(values, "recipient");
  if (!recipient) return { ok: false, code: ctx.fail(Exit.Usage, "--recipient <address> is required (the base58 wallet that receives the funds)") };
  const parsed = parsePublicKey(recipient);
  return parsed.ok ? { ok: true, value: recipient } : { ok: false, code: ctx.fail(Exit.Usage, `--recipient ${recipient}: ${parsed.error}`) };
}

export function artifactsInput(ctx: CliContext, values: ParsedValues): Omit<ProveOptions, "hasher"> {
  const out: Omit<ProveOptions, "hasher"> = {};
  const wasm = str(values, "wasm");
  const zkey = str(values, "zkey");
  if (wasm) out.wasmPath = resolvePath(ctx, wasm);
  if (zkey) out.zkeyPath = resolvePath(ctx, zkey);
  return out;
}

export function proveFailure(ctx: CliContext, e: ProveError): ExitCode {
  switch (e.kind) {
    case "recipient":
    case "terms":
    case "amount":
      return ctx.fail(Exit.Usage, e.message);
    case "note":
    case "artifacts":
      return ctx.fail(Exit.LocalFile, e.message);
    case "path":
      return ctx.fail(Exit.ProofMismatch, `PROOF DOES NOT VERIFY: ${e.message}`);
    case "prover":
    case "signals":
      return ctx.fail(Exit.ProveFailed, `the withdrawal proof could not be built: ${e.message}`);
  }
}

/**
 * Where the spent check and the Merkle path come from (docs/privacy.md):
 * --rpc reads them from the chain, --relay-links-deposit asks the relay for
 * exactly this note, and otherwise the relay is asked among --decoys others.
 */
export const lookupOptions: Record<string, OptionSpec> = {
  rpc: {
    type: "string",
    value: "url",
    help: "read the tree and the nullifier from this Solana JSON-RPC endpoint: the relay is asked nothing that names the note (solana networks)",
  },
  program: { type: "string", value: "id", help: "with --rpc: the pool program id (default FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ)" },
  decoys: {
    type: "string",
    value: "k",
    help: `without --rpc: other leaves (that could hold the amount) and nullifier hashes asked with the note's, the same on every retry (default ${DEFAULT_DECOYS}, 0 to 64)`,
  },
  "relay-links-deposit": { type: "boolean", help: "ask the relay for exactly this note's leaf and nullifier: it can then link the deposit to this withdrawal" },
};

export function lookupInput(ctx: CliContext, values: ParsedValues): Input<NoteLookup> {
  const rpc = rpcInput(ctx, values);
  if (!rpc.ok) return rpc;
  const decoysText = str(values, "decoys");
  const linked = values["relay-links-deposit"] === true;
  if (!rpc.value && str(values, "program") !== undefined)
    return { ok: false, code: ctx.fail(Exit.Usage, "--program goes with --rpc (the pool program whose deposits are read)") };
  if (linked && (rpc.value || decoysText !== undefined))
    return { ok: false, code: ctx.fail(Exit.Usage, "--relay-links-deposit asks the relay directly: leave out --rpc and --decoys") };
  if (rpc.value) {
    if (decoysText !== undefined)
      return { ok: false, code: ctx.fail(Exit.Usage, "--decoys pads requests to the relay; with --rpc the relay is asked nothing about the note") };
    const program = programInput(ctx, values);
    if (!program.ok) return program;
    return { ok: true, value: { kind: "chain", rpc: rpc.value, programId: program.value } };
  }
  if (linked) return { ok: true, value: { kind: "relay-links-deposit" } };
  if (decoysText === undefined) return { ok: true, value: { kind: "decoys" } };
  if (!/^[0-9]{1,2}$/.test(decoysText) || Number(decoysText) > 64)
    return { ok: false, code: ctx.fail(Exit.Usage, `--decoys ${decoysText} must be a whole number from 0 to 64`) };
  return { ok: true, value: { kind: "decoys", decoys: Number(decoysText) } };
}

/** One line on stderr saying what the relay learns from the lookups. */
export function describeLookup(ctx: CliContext, lookup: NoteLookup): void {
  if (lookup.kind === "chain")
    ctx.note(
      `reading the tree and the nullifier from the chain at ${redactUrl(typeof lookup.rpc === "string" ? lookup.rpc : lookup.rpc.rpcEndpoint)}; the relay is asked only for its root`,
    );
  else if (lookup.kind === "relay-links-deposit") ctx.note("--relay-links-deposit: the relay is told which leaf and nullifier this withdrawal spends");
  else
    ctx.note(
      `asking the relay for the note's leaf and nullifier among ${lookup.decoys ?? DEFAULT_DECOYS} decoys each (the same ones on every retry), without the login token (--rpc asks it nothing)`,
    );
}

export const STAGE_TEXT: Record<WithdrawStage, string> = {
  login: "logging in",
  nullifier: "checking the note is unspent",
  fees: "reading the relay's key and fee (GET /fees)",
  quote: "quoting the swap (POST /jupiter)",
  merkle: "fetching and checking the Merkle proof",
  prove: "proving the withdrawal (a few seconds)",
  save: "writing the pending change note before sending",
  relay: "relaying",
  // SDK withdraw(): the relay answered InvalidRoot, so the proof is made again once against a fresh path.
  reprove: "the relay no longer accepts the proof's root (over 1,000 insertions since the path was read): proving again against a fresh root, once",
};

/** The /relay (or, for a swap, /relay_swap) request as JSON: what a proof file carries, so it can be sent with any HTTP client. */
function relayRequestJson(p: WithdrawalProof): { [k: string]: JsonValue } {
  const common: { [k: string]: JsonValue } = {
    nullifierHash: Array.from(p.nullifierHash),
    proof: Array.from(p.proof),
    root: Array.from(p.root),
    recipient: p.recipient,
    depth: 32,
    depositSize: Number(p.amount),
    changeCommitment: Array.from(p.changeCommitment),
  };
  const terms = { network: p.network, fee: Number(p.fee), relayer: p.relayer };
  if (p.swap === null) return { ...common, mint: p.mint, ...terms };
  return { ...common, input_mint: p.mint, output_mint: p.swap.outputMint, ...terms, minOut: p.swap.minOut.toString() };
}

/** What the withdrawing commands (`prove`, `relay`) read first, in this order; `between` reads a command's own flags after --rpc and --decoys. */
export function withdrawalInputs<T>(
  ctx: CliContext,
  values: ParsedValues,
  between: () => Input<T>,
): Input<{ recipient: string; lookup: NoteLookup; between: T; swap: SwapFlags | null; amount: bigint | undefined }> {
  const recipient = recipientInput(ctx, values);
  if (!recipient.ok) return recipient;
  const lookup = lookupInput(ctx, values);
  if (!lookup.ok) return lookup;
  const own = between();
  if (!own.ok) return own;
  const swap = swapInput(ctx, values);
  if (!swap.ok) return swap;
  const amount = baseUnitsFlag(ctx, values, "amount", 1n);
  if (!amount.ok) return amount;
  return { ok: true, value: { recipient: recipient.value, lookup: lookup.value, between: own.value, swap: swap.value, amount: amount.value } };
}

/** A failed withdrawal (or proof) as its message and exit code; `swap` names the endpoint a relay failure came from. */
export function withdrawFailure(ctx: CliContext, e: WithdrawError, swap: boolean): ExitCode {
  switch (e.stage) {
    case "login":
      return ctx.apiFailure("login", e.failure);
    case "nullifier":
      return ctx.apiFailure("get_nullifier", e.failure);
    case "fees":
      return ctx.apiFailure("fees", e.failure);
    case "quote":
      return ctx.apiFailure("quote", e.failure);
    case "spent":
      return ctx.fail(Exit.Refused, `the note was already withdrawn (nullifier account ${e.address}): \`relay-cli note --note <file>\` follows its chain`, {
        error: "NullifierAlreadySpent",
        nullifierAccount: e.address,
      });
    case "merkle":
      return noteProofFailure(ctx, e.error);
    case "prove":
      return proveFailure(ctx, e.error);
    case "save":
      return ctx.fail(Exit.LocalFile, `the pending change note could not be written, so nothing was sent: ${e.message}`);
    case "relay":
      if (e.landed === false) ctx.note("the note's nullifier is still unspent: nothing was withdrawn, and running `relay` again is safe");
      if (e.landed === null) ctx.note("whether the withdrawal landed is unknown: the file is pending; `relay-cli note --note <file>` resolves it");
      if (e.failure.error === "SlippageExceeded")
        ctx.note("the price moved below the proof's minOut before the swap: nothing was withdrawn; run `relay` again for a fresh quote");
      if (e.failure.error === "FeeTooLow")
        ctx.note("the relay raised its fee after the plan was shown: nothing was withdrawn; run `relay` again to see the new fees");
      return ctx.apiFailure(swap ? "relay_swap" : "relay", e.failure);
  }
}

/** A whole number of base units from a flag (`--fee`, `--min-out`). */
export function baseUnitsFlag(ctx: CliContext, values: ParsedValues, name: string, min: bigint): Input<bigint | undefined> {
  const text = str(values, name);
  if (text === undefined) return { ok: true, value: undefined };
  if (!/^[0-9]{1,20}$/.test(text) || BigInt(text) < min || BigInt(text) > U64_MAX) {
    return {
      ok: false,
      code: ctx.fail(Exit.Usage, `--${name} ${text} must be a whole number of base units from ${min} to 2^64 - 1 (no decimals or exponents)`),
    };
  }
  return { ok: true, value: BigInt(text) };
}

export interface SwapFlags {
  outputMint: string;
  minOut: bigint | undefined;
}

/** --swap-to and --min-out as given (checked against the note by {@link swapAgainstNote}); --min-out only with --swap-to. */
export function swapInput(ctx: CliContext, values: ParsedValues): Input<SwapFlags | null> {
  const swapTo = str(values, "swap-to");
  const minOut = baseUnitsFlag(ctx, values, "min-out", 1n);
  if (!minOut.ok) return minOut;
  if (swapTo === undefined) {
    if (minOut.value !== undefined) return { ok: false, code: ctx.fail(Exit.Usage, "--min-out is the least a swap must deliver: give --swap-to <mint> too") };
    return { ok: true, value: null };
  }
  const parsed = parsePublicKey(swapTo);
  if (!parsed.ok) return { ok: false, code: ctx.fail(Exit.Usage, `--swap-to ${swapTo}: ${parsed.error}`) };
  return { ok: true, value: { outputMint: swapTo, minOut: minOut.value } };
}

/** A swap into the note's own mint is a plain withdrawal asked for the wrong way. */
export function swapAgainstNote(ctx: CliContext, swap: { outputMint: string } | null, note: DepositNote): ExitCode | null {
  if (swap && swap.outputMint === note.mint) return ctx.fail(Exit.Usage, "--swap-to is the note's own mint: leave it out to withdraw without a swap");
  return null;
}

export const swapOptions: Record<string, OptionSpec> = {
  "swap-to": { type: "string", value: "mint", help: "receive this token instead: swap through /relay_swap" },
  "min-out": { type: "string", value: "base units", help: "with --swap-to: the least the recipient must receive (default: the quote's otherAmountThreshold)" },
};

export const prove: CommandSpec = {
  name: "prove",
  summary: "build (without relaying) the withdrawal proof of a note to a recipient, for inspection",
  details:
    "Fetches and checks the note's Merkle proof, proves with snarkjs (a few seconds), checks the proof against\n" +
    "resources/zk/verification_key.json, and prints the 256-byte proof and the public signals. --out saves them\n" +
    "with the exact /relay request (/relay_swap with --swap-to). `relay` does all of this itself: use `prove` to look,\n" +
    "`relay` to withdraw. The proof is bound to the relay's terms: the relayer key and the fee (default: this relay's,\n" +
    "from GET /fees), and with --swap-to the output mint and minOut (default: the quote's otherAmountThreshold).\n" +
    "A relay refuses a proof made for any other terms. A proof is bound to its root too: after more deposits\n" +
    "than the relay keeps roots (100), prove again. --amount proves a part of the note (default: all of it); the\n" +
    "proof then carries the change leaf of what is left (changeCommitment), which `relay` would keep as the note.",
  options: {
    note: noteOption,
    recipient: recipientOption,
    amount: { type: "string", value: "base units", help: "the part of the note to withdraw (default: its whole value)" },
    relayer: { type: "string", value: "address", help: "the relayer key to bind (default: GET /fees relayers[network] of --url)" },
    fee: { type: "string", value: "base units", help: "the fee to bind, in the note's mint (default: the fee GET /fees publishes)" },
    ...swapOptions,
    out: { type: "string", value: "file", help: "save the proof, public signals and /relay (or /relay_swap) request as JSON" },
    ...lookupOptions,
    ...artifactOptions,
  },
  async run(ctx, values) {
    const given = withdrawalInputs(ctx, values, () => termsFlags(ctx, values));
    if (!given.ok) return given.code;
    const { recipient, lookup, swap, between: bind } = given.value;
    const note = await noteInput(ctx, values);
    if (!note.ok) return note.code;
    if (note.value.amount === 0n) return ctx.fail(Exit.Refused, "the note holds nothing: every part of it was withdrawn", { error: "NothingLeft" });
    const amount = given.value.amount ?? note.value.amount;
    if (amount > note.value.amount) return ctx.fail(Exit.Usage, `--amount ${amount} is above the note's value (${note.value.amount})`);
    if (bind.fee !== undefined && bind.fee >= amount) return ctx.fail(Exit.Usage, `--fee ${bind.fee} must be below the amount withdrawn (${amount})`);
    const sameMint = swapAgainstNote(ctx, swap, note.value);
    if (sameMint !== null) return sameMint;
    const hasher = await ctx.hasher();
    describeLookup(ctx, lookup);

    const prepared = await prepareWithdrawal(ctx.client, note.value, recipient, {
      hasher,
      lookup,
      amount,
      prove: artifactsInput(ctx, values),
      ...(swap ? { swapTo: swap.outputMint } : {}),
      ...(swap?.minOut !== undefined ? { minOut: swap.minOut } : {}),
      onStage: (s) => {
        if (s === "quote" || s === "prove") ctx.note(`${STAGE_TEXT[s]}...`);
      },
      inspect: { ...bind, warn: (w) => ctx.note(inspectWarning(ctx, note.value, w)) },
    });
    if (!prepared.ok) {
      const e = prepared.error;
      if (e.stage === "quote" && e.noMinOut)
        return ctx.fail(Exit.Refused, "the quote gives no positive otherAmountThreshold to prove as minOut: give --min-out");
      return withdrawFailure(ctx, e, swap !== null);
    }
    const p = prepared.value.proof;
    const verified = await verifyWithdrawalProof(p.proof, p.publicSignals);
    if (!verified.ok) return ctx.fail(Exit.LocalFile, verified.error);
    if (!verified.value)
      return ctx.fail(
        Exit.ProveFailed,
        "the proof does not verify against resources/zk/verification_key.json: the proving key and the verification key differ",
      );

    const json = proofJson(p);
    const out = str(values, "out");
    let file: string | null = null;
    if (out) {
      file = resolvePath(ctx, out);
      try {
        writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
      } catch (e) {
        return ctx.fail(Exit.LocalFile, `cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    }
    return ctx.done(proofLines(p, file), file ? { ...json, file } : json);
  },
};

/** --relayer and --fee: terms to bind instead of the relay's own. */
function termsFlags(ctx: CliContext, values: ParsedValues): Input<{ relayer?: string; fee?: bigint }> {
  const relayer = str(values, "relayer");
  if (relayer !== undefined && !parsePublicKey(relayer).ok) return { ok: false, code: ctx.fail(Exit.Usage, `--relayer ${relayer} is not a base58 public key`) };
  const fee = baseUnitsFlag(ctx, values, "fee", 0n);
  if (!fee.ok) return fee;
  return { ok: true, value: { ...(relayer !== undefined ? { relayer } : {}), ...(fee.value !== undefined ? { fee: fee.value } : {}) } };
}

/** Why the relay would refuse the proof being built, as a warning line. */
function inspectWarning(ctx: CliContext, note: DepositNote, w: InspectWarning): string {
  switch (w.kind) {
    case "spent":
      return `warning: this note was already withdrawn (nullifier account ${w.address}); the relay will refuse this proof`;
    case "relayer":
      return `warning: the relay at ${ctx.url} signs ${note.network} withdrawals with ${w.published}; it will refuse a proof for ${w.bound}`;
    case "fee":
      return `warning: ${w.bound} is below the relay's fee (${w.published}); it will refuse the request (FeeTooLow)`;
  }
}

/** What `prove --out` saves and `prove --json` prints. The spent leaf's index and commitment stay out: they would link this withdrawal to its deposit. */
function proofJson(p: WithdrawalProof): { [k: string]: JsonValue } {
  return {
    kind: "private-withdrawal-relay/withdrawal-proof",
    protocol: PROTOCOL_VERSION,
    network: p.network,
    mint: p.mint,
    recipient: p.recipient,
    depositSize: p.amount.toString(),
    relayer: p.relayer,
    fee: p.fee.toString(),
    swap: p.swap === null ? null : { outputMint: p.swap.outputMint, minOut: p.swap.minOut.toString() },
    root: hex(p.root),
    nullifierHash: hex(p.nullifierHash),
    extDataHash: hex(p.extDataHash),
    changeCommitment: hex(p.changeCommitment),
    proof: hex(p.proof),
    publicSignals: p.publicSignals,
    publicSignalNames: [...PUBLIC_SIGNAL_NAMES],
    verified: true,
    provingMs: p.provingMs,
    endpoint: endpointOf(p),
    request: relayRequestJson(p),
  };
}

const endpointOf = (p: WithdrawalProof): string => (p.swap === null ? "/relay" : "/relay_swap");

function proofLines(p: WithdrawalProof, file: string | null): string[] {
  return [
    `withdrawal proof of ${p.amount} ${p.mint} on ${p.network} to ${p.recipient}`,
    `proved in ${p.provingMs} ms; verifies against resources/zk/verification_key.json`,
    `bound to relayer ${p.relayer}, fee ${p.fee}` + (p.swap ? `, swap into ${p.swap.outputMint} of at least ${p.swap.minOut}` : ""),
    `root: ${hex(p.root)}`,
    `nullifierHash: ${hex(p.nullifierHash)}`,
    `changeCommitment: ${hex(p.changeCommitment)}`,
    `proof (256 bytes): ${hex(p.proof)}`,
    "public signals:",
    ...p.publicSignals.map((s, i) => `  ${(PUBLIC_SIGNAL_NAMES[i] ?? `#${i}`).padEnd(16)} ${s}`),
    ...(file ? [`saved to ${file} (with the ${endpointOf(p)} request under "request")`] : ["not relayed: `relay` proves and submits in one step"]),
  ];
}
