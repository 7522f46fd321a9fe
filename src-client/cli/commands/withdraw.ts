import { writeFileSync } from "node:fs";
import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { toHex } from "../../../src-shared/encoding/bytes";
import { relayFee } from "../../sdk/http";
import type { DepositNote } from "../../sdk/note";
import { proveWithdrawal, verifyWithdrawalProof, type ProveError, type ProveOptions, type WithdrawalProof } from "../../sdk/prove";
import { getNoteNullifier, getNoteProof } from "../../sdk/tree";
import { withdraw, type WithdrawStage } from "../../sdk/withdraw";
import { Exit, type CliContext, type ExitCode, type JsonValue } from "../context";
import { keypairInput, noteInput, resolvePath, type Input } from "../inputs";
import { str, type CommandSpec, type OptionSpec, type ParsedValues } from "../spec";
import { noteOption, noteProofFailure } from "./pool";

const hex = (b: Uint8Array): string => `0x${toHex(b)}`;

const recipientOption: OptionSpec = { type: "string", value: "address", help: "the wallet that receives the withdrawal (base58)", required: true };
const artifactOptions: Record<string, OptionSpec> = {
  wasm: { type: "string", value: "file", help: "withdraw circuit wasm (default resources/zk/withdraw.wasm)" },
  zkey: { type: "string", value: "file", help: "withdraw proving key (default resources/zk/withdraw.zkey)" },
};

function recipientInput(ctx: CliContext, values: ParsedValues): Input<string> {
  const recipient = str(values, "recipient");
  if (!recipient) return { ok: false, code: ctx.fail(Exit.Usage, "--recipient <address> is required (the base58 wallet that receives the funds)") };
  const parsed = parsePublicKey(recipient);
  return parsed.ok ? { ok: true, value: recipient } : { ok: false, code: ctx.fail(Exit.Usage, `--recipient ${recipient}: ${parsed.error}`) };
}

function artifactsInput(ctx: CliContext, values: ParsedValues): Omit<ProveOptions, "hasher"> {
  const out: Omit<ProveOptions, "hasher"> = {};
  const wasm = str(values, "wasm");
  const zkey = str(values, "zkey");
  if (wasm) out.wasmPath = resolvePath(ctx, wasm);
  if (zkey) out.zkeyPath = resolvePath(ctx, zkey);
  return out;
}

function proveFailure(ctx: CliContext, e: ProveError): ExitCode {
  switch (e.kind) {
    case "recipient":
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

const STAGE_TEXT: Record<WithdrawStage, string> = {
  login: "logging in",
  nullifier: "checking the note is unspent",
  quote: "quoting the swap (POST /jupiter)",
  merkle: "fetching and checking the Merkle proof",
  prove: "proving the withdrawal (a few seconds)",
  relay: "relaying",
};

/** The /relay request as JSON: what a proof file carries, so it can be sent with any HTTP client. */
function relayRequestJson(p: WithdrawalProof): { [k: string]: JsonValue } {
  return {
    nullifierHash: Array.from(p.nullifierHash),
    proof: Array.from(p.proof),
    root: Array.from(p.root),
    recipient: p.recipient,
    depth: 32,
    depositSize: Number(p.amount),
    mint: p.mint,
    network: p.network,
  };
}

/** What the recipient will get, when /fees can be read; the relay fixes the fee when it receives the request. */
async function feeLine(ctx: CliContext, note: DepositNote): Promise<{ fee: bigint; toRecipient: bigint } | null> {
  const fees = await ctx.client.fees();
  if (!fees.ok) return null;
  return relayFee(fees.value, note.network, note.mint, note.amount);
}

export const prove: CommandSpec = {
  name: "prove",
  summary: "build (without relaying) the withdrawal proof of a note to a recipient, for inspection",
  details:
    "Fetches and checks the note's Merkle proof, proves with snarkjs (a few seconds), checks the proof against\n" +
    "resources/zk/verification_key.json, and prints the 256-byte proof and the public signals. --out saves them\n" +
    "with the exact /relay request. `relay` does all of this itself: use `prove` to look, `relay` to withdraw.\n" +
    "A proof is bound to its root: after more deposits than the relay keeps roots (100), prove again.",
  options: {
    note: noteOption,
    recipient: recipientOption,
    out: { type: "string", value: "file", help: "save the proof, public signals and /relay request as JSON" },
    ...artifactOptions,
  },
  async run(ctx, values) {
    const recipient = recipientInput(ctx, values);
    if (!recipient.ok) return recipient.code;
    const note = await noteInput(ctx, values);
    if (!note.ok) return note.code;
    const hasher = await ctx.hasher();

    const spent = await getNoteNullifier(ctx.client, note.value);
    if (spent.ok && spent.value.address !== null) ctx.note(`warning: this note was already withdrawn (nullifier account ${spent.value.address}); the relay will refuse this proof`);
    const merkle = await getNoteProof(ctx.client, note.value, { hasher });
    if (!merkle.ok) return noteProofFailure(ctx, merkle.error);
    ctx.note(`${STAGE_TEXT.prove}...`);
    const proved = await proveWithdrawal(note.value, merkle.value, recipient.value, { ...artifactsInput(ctx, values), hasher });
    if (!proved.ok) return proveFailure(ctx, proved.error);
    const p = proved.value;
    const verified = await verifyWithdrawalProof(p.proof, p.publicSignals);
    if (!verified.ok) return ctx.fail(Exit.LocalFile, verified.error);
    if (!verified.value) return ctx.fail(Exit.ProveFailed, "the proof does not verify against resources/zk/verification_key.json: the proving key and the verification key differ");

    // The leaf index and commitment stay out: they would link this withdrawal to its deposit.
    const json: { [k: string]: JsonValue } = {
      kind: "private-withdrawal-relay/withdrawal-proof",
      network: p.network,
      mint: p.mint,
      recipient: p.recipient,
      depositSize: p.amount.toString(),
      root: hex(p.root),
      nullifierHash: hex(p.nullifierHash),
      proof: hex(p.proof),
      publicSignals: p.publicSignals,
      publicSignalNames: ["root", "nullifierHash", "recipient", "amount", "mint"],
      verified: true,
      provingMs: p.provingMs,
      request: relayRequestJson(p),
    };
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
    const names = ["root", "nullifierHash", "recipient", "amount", "mint"];
    return ctx.done(
      [
        `withdrawal proof of ${p.amount} ${p.mint} on ${p.network} to ${p.recipient}`,
        `proved in ${p.provingMs} ms; verifies against resources/zk/verification_key.json`,
        `root: ${hex(p.root)}`,
        `nullifierHash: ${hex(p.nullifierHash)}`,
        `proof (256 bytes): ${hex(p.proof)}`,
        "public signals:",
        ...p.publicSignals.map((s, i) => `  ${names[i]!.padEnd(13)} ${s}`),
        ...(file ? [`saved to ${file} (with the /relay request under "request")`] : ["not relayed: `relay` proves and submits in one step"]),
      ],
      file ? { ...json, file } : json,
    );
  },
};

export const relay: CommandSpec = {
  name: "relay",
  summary: "withdraw a note to a recipient: log in, prove, and submit through the relay (/relay, or /relay_swap with --swap-to)",
  details:
    "Logs in with --keypair (any wallet: it only authenticates the request and does not need to be the depositor),\n" +
    "refuses a note that is already spent, checks the Merkle proof, proves (a few seconds) and POSTs /relay.\n" +
    "The recipient receives the note's amount minus the relayer's fee (GET /fees). Exit 1 when the relay refuses;\n" +
    "after a time-out the CLI asks get_nullifier whether the withdrawal landed before telling you to retry.\n" +
    "--swap-to <mint> withdraws through /relay_swap: the amount minus the fee is swapped into that mint for the\n" +
    "recipient (the fee stays in the note's mint). The swap is quoted before proving; the relay refuses with\n" +
    "SlippageExceeded if it would deliver less than its own quote minus the pair's slippage, and nothing is spent.",
  options: {
    note: noteOption,
    keypair: { type: "string", value: "file", help: "a wallet keypair to log in with (x-api-auth)", required: true },
    recipient: recipientOption,
    "swap-to": { type: "string", value: "mint", help: "receive this token instead: swap through /relay_swap" },
    ...artifactOptions,
  },
  async run(ctx, values) {
    const recipient = recipientInput(ctx, values);
    if (!recipient.ok) return recipient.code;
    const note = await noteInput(ctx, values);
    if (!note.ok) return note.code;
    const kp = keypairInput(ctx, values);
    if (!kp.ok) return kp.code;
    const swapTo = str(values, "swap-to");
    if (swapTo !== undefined) {
      const parsed = parsePublicKey(swapTo);
      if (!parsed.ok) return ctx.fail(Exit.Usage, `--swap-to ${swapTo}: ${parsed.error}`);
      if (swapTo === note.value.mint) return ctx.fail(Exit.Usage, "--swap-to is the note's own mint: leave it out to withdraw without a swap");
    }
    const quote = await feeLine(ctx, note.value);

    const r = await withdraw(ctx.client, note.value, recipient.value, {
      wallet: kp.value,
      hasher: await ctx.hasher(),
      prove: artifactsInput(ctx, values),
      onStage: (s) => ctx.note(`${STAGE_TEXT[s]}...`),
      ...(swapTo !== undefined ? { swapTo } : {}),
    });
    if (!r.ok) {
      const e = r.error;
      switch (e.stage) {
        case "login":
          return ctx.apiFailure("login", e.failure);
        case "nullifier":
          return ctx.apiFailure("get_nullifier", e.failure);
        case "quote":
          return ctx.apiFailure("quote", e.failure);
        case "spent":
          return ctx.fail(Exit.Refused, `the note was already withdrawn (nullifier account ${e.address})`, { error: "NullifierAlreadySpent", nullifierAccount: e.address });
        case "merkle":
          return noteProofFailure(ctx, e.error);
        case "prove":
          return proveFailure(ctx, e.error);
        case "relay":
          if (e.landed === true) {
            ctx.note(`the relay's answer was ${e.failure.status} ${e.failure.error}, but the note's nullifier is now spent: the withdrawal landed`);
            return ctx.done(
              [`withdrawn to ${recipient.value} (the relay did not send the transaction signature)`],
              { withdrawn: true, signature: null, recipient: recipient.value, relayAnswer: { status: e.failure.status, error: e.failure.error } },
            );
          }
          if (e.landed === false) ctx.note("the note's nullifier is still unspent: nothing was withdrawn, and running `relay` again is safe");
          if (e.landed === null) ctx.note("whether the withdrawal landed is unknown: run `nullifier --note` before relaying again");
          if (e.failure.error === "SlippageExceeded") ctx.note("the price moved past the pair's slippage before the swap: nothing was withdrawn; run `relay` again for a fresh quote");
          return ctx.apiFailure(swapTo === undefined ? "relay" : "relay_swap", e.failure);
      }
    }
    const { signature, proof: p, quote: swapQuote } = r.value;
    const lines = [`withdrawn: ${p.amount} of ${p.mint} on ${p.network} to ${p.recipient}`, `signature: ${signature}`];
    if (quote && swapQuote) {
      const least = swapQuote.otherAmountThreshold ? `, at least ${swapQuote.otherAmountThreshold}` : "";
      lines.push(`fee: ${quote.fee} of ${p.mint}; ${quote.toRecipient} swapped into ${swapQuote.outputMint}: about ${swapQuote.outAmount}${least} (quoted before proving)`);
    } else if (quote) lines.push(`fee: ${quote.fee}; the recipient receives ${quote.toRecipient} (per GET /fees)`);
    lines.push(`proving took ${p.provingMs} ms`);
    const json: { [k: string]: JsonValue } = {
      withdrawn: true,
      signature,
      network: p.network,
      mint: p.mint,
      recipient: p.recipient,
      depositSize: p.amount.toString(),
      nullifierHash: hex(p.nullifierHash),
      root: hex(p.root),
      provingMs: p.provingMs,
    };
    if (quote) Object.assign(json, { fee: quote.fee.toString(), toRecipient: quote.toRecipient.toString() });
    if (swapQuote) {
      json.swap = { outputMint: swapQuote.outputMint, quotedOut: swapQuote.outAmount, minOut: swapQuote.otherAmountThreshold ?? null, priceImpactPct: swapQuote.priceImpactPct };
    }
    return ctx.done(lines, json);
  },
};
