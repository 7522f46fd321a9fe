import { writeFileSync } from "node:fs";
import { PUBLIC_SIGNAL_NAMES, U64_MAX } from "../../../src-shared/crypto/protocol";
import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { toHex } from "../../../src-shared/encoding/bytes";
import { redactUrl } from "../../../src-shared/redact-url";
import type { DepositNote } from "../../sdk/note";
import { proveWithdrawal, verifyWithdrawalProof, type ProveError, type ProveOptions, type WithdrawalProof } from "../../sdk/prove";
import { DEFAULT_DECOYS, noteSource, type NoteLookup } from "../../sdk/lookup";
import { relayTermsNow, withdraw, type WithdrawStage } from "../../sdk/withdraw";
import { Exit, type CliContext, type ExitCode, type JsonValue } from "../context";
import { keypairInput, noteInput, programInput, resolvePath, rpcInput, type Input } from "../inputs";
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
const lookupOptions: Record<string, OptionSpec> = {
  rpc: {
    type: "string",
    value: "url",
    help: "read the tree and the nullifier from this Solana JSON-RPC endpoint: the relay is asked nothing that names the note (solana networks)",
  },
  program: { type: "string", value: "id", help: "with --rpc: the pool program id (default FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ)" },
  decoys: {
    type: "string",
    value: "k",
    help: `without --rpc: random other leaves and nullifier hashes asked with the note's (default ${DEFAULT_DECOYS}, 0 to 64)`,
  },
  "relay-links-deposit": { type: "boolean", help: "ask the relay for exactly this note's leaf and nullifier: it can then link the deposit to this withdrawal" },
};

function lookupInput(ctx: CliContext, values: ParsedValues): Input<NoteLookup> {
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
function describeLookup(ctx: CliContext, lookup: NoteLookup): void {
  if (lookup.kind === "chain")
    ctx.note(
      `reading the tree and the nullifier from the chain at ${redactUrl(typeof lookup.rpc === "string" ? lookup.rpc : lookup.rpc.rpcEndpoint)}; the relay is asked only for its root`,
    );
  else if (lookup.kind === "relay-links-deposit") ctx.note("--relay-links-deposit: the relay is told which leaf and nullifier this withdrawal spends");
  else
    ctx.note(
      `asking the relay for the note's leaf and nullifier among ${lookup.decoys ?? DEFAULT_DECOYS} decoys each, without the login token (--rpc asks it nothing)`,
    );
}

const STAGE_TEXT: Record<WithdrawStage, string> = {
  login: "logging in",
  nullifier: "checking the note is unspent",
  fees: "reading the relay's key and fee (GET /fees)",
  quote: "quoting the swap (POST /jupiter)",
  merkle: "fetching and checking the Merkle proof",
  prove: "proving the withdrawal (a few seconds)",
  relay: "relaying",
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
  };
  const terms = { network: p.network, fee: Number(p.fee), relayer: p.relayer };
  if (p.swap === null) return { ...common, mint: p.mint, ...terms };
  return { ...common, input_mint: p.mint, output_mint: p.swap.outputMint, ...terms, minOut: p.swap.minOut.toString() };
}

/** A whole number of base units from a flag (`--fee`, `--min-out`). */
function baseUnitsFlag(ctx: CliContext, values: ParsedValues, name: string, min: bigint): Input<bigint | undefined> {
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

/** --swap-to and --min-out as given (checked against the note by {@link swapAgainstNote}); --min-out only with --swap-to. */
function swapInput(ctx: CliContext, values: ParsedValues): Input<{ outputMint: string; minOut: bigint | undefined } | null> {
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
function swapAgainstNote(ctx: CliContext, swap: { outputMint: string } | null, note: DepositNote): ExitCode | null {
  if (swap && swap.outputMint === note.mint) return ctx.fail(Exit.Usage, "--swap-to is the note's own mint: leave it out to withdraw without a swap");
  return null;
}

const swapOptions: Record<string, OptionSpec> = {
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
    "than the relay keeps roots (100), prove again.",
  options: {
    note: noteOption,
    recipient: recipientOption,
    relayer: { type: "string", value: "address", help: "the relayer key to bind (default: GET /fees relayers[network] of --url)" },
    fee: { type: "string", value: "base units", help: "the fee to bind, in the note's mint (default: the fee GET /fees publishes)" },
    ...swapOptions,
    out: { type: "string", value: "file", help: "save the proof, public signals and /relay (or /relay_swap) request as JSON" },
    ...lookupOptions,
    ...artifactOptions,
  },
  async run(ctx, values) {
    const recipient = recipientInput(ctx, values);
    if (!recipient.ok) return recipient.code;
    const lookup = lookupInput(ctx, values);
    if (!lookup.ok) return lookup.code;
    const relayerFlag = str(values, "relayer");
    if (relayerFlag !== undefined && !parsePublicKey(relayerFlag).ok) return ctx.fail(Exit.Usage, `--relayer ${relayerFlag} is not a base58 public key`);
    const feeFlag = baseUnitsFlag(ctx, values, "fee", 0n);
    if (!feeFlag.ok) return feeFlag.code;
    const swap = swapInput(ctx, values);
    if (!swap.ok) return swap.code;
    const note = await noteInput(ctx, values);
    if (!note.ok) return note.code;
    if (feeFlag.value !== undefined && feeFlag.value >= note.value.amount)
      return ctx.fail(Exit.Usage, `--fee ${feeFlag.value} must be below the note's amount (${note.value.amount})`);
    const sameMint = swapAgainstNote(ctx, swap.value, note.value);
    if (sameMint !== null) return sameMint;
    const hasher = await ctx.hasher();
    const source = noteSource(ctx.client, note.value, lookup.value, { hasher });
    describeLookup(ctx, lookup.value);

    const spent = await source.spent();
    if (spent.ok && spent.value.address !== null)
      ctx.note(`warning: this note was already withdrawn (nullifier account ${spent.value.address}); the relay will refuse this proof`);

    // The relay's own terms, unless both are given (then GET /fees is only read to warn about a mismatch).
    const published = await relayTermsNow(ctx.client, note.value);
    if (!published.ok && (relayerFlag === undefined || feeFlag.value === undefined)) return ctx.apiFailure("fees", published);
    const relayer = relayerFlag ?? (published.ok ? published.value.relayer : "");
    const fee = feeFlag.value ?? (published.ok ? published.value.fee : 0n);
    if (published.ok && relayer !== published.value.relayer)
      ctx.note(
        `warning: the relay at ${ctx.url} signs ${note.value.network} withdrawals with ${published.value.relayer}; it will refuse a proof for ${relayer}`,
      );
    if (published.ok && fee < published.value.fee)
      ctx.note(`warning: ${fee} is below the relay's fee (${published.value.fee}); it will refuse the request (FeeTooLow)`);

    let minOut: bigint | null = null;
    if (swap.value) {
      minOut = swap.value.minOut ?? null;
      if (minOut === null) {
        ctx.note(`${STAGE_TEXT.quote}...`);
        const q = await ctx.client.quote({
          inputMint: note.value.mint,
          outputMint: swap.value.outputMint,
          amount: note.value.amount - fee,
          network: note.value.network,
        });
        if (!q.ok) return ctx.apiFailure("quote", q);
        if (q.value.otherAmountThreshold === undefined || BigInt(q.value.otherAmountThreshold) === 0n) {
          return ctx.fail(Exit.Refused, "the quote gives no positive otherAmountThreshold to prove as minOut: give --min-out");
        }
        minOut = BigInt(q.value.otherAmountThreshold);
      }
    }

    const merkle = await source.path();
    if (!merkle.ok) return noteProofFailure(ctx, merkle.error);
    ctx.note(`${STAGE_TEXT.prove}...`);
    const proved = await proveWithdrawal(note.value, merkle.value, recipient.value, {
      ...artifactsInput(ctx, values),
      hasher,
      relayer,
      fee,
      swap: swap.value && minOut !== null ? { outputMint: swap.value.outputMint, minOut } : null,
    });
    if (!proved.ok) return proveFailure(ctx, proved.error);
    const p = proved.value;
    const verified = await verifyWithdrawalProof(p.proof, p.publicSignals);
    if (!verified.ok) return ctx.fail(Exit.LocalFile, verified.error);
    if (!verified.value)
      return ctx.fail(
        Exit.ProveFailed,
        "the proof does not verify against resources/zk/verification_key.json: the proving key and the verification key differ",
      );

    const endpoint = p.swap === null ? "/relay" : "/relay_swap";
    // The leaf index and commitment stay out: they would link this withdrawal to its deposit.
    const json: { [k: string]: JsonValue } = {
      kind: "private-withdrawal-relay/withdrawal-proof",
      protocol: 2,
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
      proof: hex(p.proof),
      publicSignals: p.publicSignals,
      publicSignalNames: [...PUBLIC_SIGNAL_NAMES],
      verified: true,
      provingMs: p.provingMs,
      endpoint,
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
    return ctx.done(
      [
        `withdrawal proof of ${p.amount} ${p.mint} on ${p.network} to ${p.recipient}`,
        `proved in ${p.provingMs} ms; verifies against resources/zk/verification_key.json`,
        `bound to relayer ${p.relayer}, fee ${p.fee}` + (p.swap ? `, swap into ${p.swap.outputMint} of at least ${p.swap.minOut}` : ""),
        `root: ${hex(p.root)}`,
        `nullifierHash: ${hex(p.nullifierHash)}`,
        `proof (256 bytes): ${hex(p.proof)}`,
        "public signals:",
        ...p.publicSignals.map((s, i) => `  ${(PUBLIC_SIGNAL_NAMES[i] ?? `#${i}`).padEnd(13)} ${s}`),
        ...(file ? [`saved to ${file} (with the ${endpoint} request under "request")`] : ["not relayed: `relay` proves and submits in one step"]),
      ],
      file ? { ...json, file } : json,
    );
  },
};

export const relay: CommandSpec = {
  name: "relay",
  summary: "withdraw a note to a recipient: log in, prove, and submit through the relay (/relay, or /relay_swap with --swap-to)",
  details:
    "Logs in with --keypair (any wallet: it only authenticates the request; use a fresh one, not the depositor's,\n" +
    "so the relay cannot tie the login to the deposit),\n" +
    "refuses a note that is already spent, reads the relay's key and fee (GET /fees), checks the Merkle proof, proves\n" +
    "(a few seconds) for exactly that relayer and fee, and POSTs /relay with them. The recipient receives the note's\n" +
    "amount minus the fee. Exit 1 when the relay refuses; after a time-out the CLI asks get_nullifier whether the\n" +
    "withdrawal landed before telling you to retry.\n" +
    "--swap-to <mint> withdraws through /relay_swap: the amount minus the fee is swapped into that mint for the\n" +
    "recipient (the fee stays in the note's mint). The swap is quoted before proving, and the proof binds its\n" +
    "otherAmountThreshold (or --min-out) as minOut: the recipient receives at least that, or nothing happens\n" +
    "(SlippageExceeded spends nothing; run it again for a fresh quote).\n" +
    "The spent check and the Merkle path never name the note to the relay alone (docs/privacy.md): with --rpc they are\n" +
    "read from the chain (the relay is asked only for its root); without it the relay is asked for the note's leaf\n" +
    "among --decoys random others (default 8) and its nullifier among as many random hashes, without the login token\n" +
    "and on connections of their own. --relay-links-deposit asks for exactly this note (the relay can link the deposit).",
  options: {
    note: noteOption,
    keypair: { type: "string", value: "file", help: "a wallet keypair to log in with (x-api-auth): a fresh one, not the depositor's", required: true },
    recipient: recipientOption,
    ...swapOptions,
    ...lookupOptions,
    ...artifactOptions,
  },
  async run(ctx, values) {
    const recipient = recipientInput(ctx, values);
    if (!recipient.ok) return recipient.code;
    const lookup = lookupInput(ctx, values);
    if (!lookup.ok) return lookup.code;
    const swap = swapInput(ctx, values);
    if (!swap.ok) return swap.code;
    const note = await noteInput(ctx, values);
    if (!note.ok) return note.code;
    const kp = keypairInput(ctx, values);
    if (!kp.ok) return kp.code;
    const sameMint = swapAgainstNote(ctx, swap.value, note.value);
    if (sameMint !== null) return sameMint;
    const swapTo = swap.value?.outputMint;
    if (note.value.deposit && note.value.deposit.wallet === kp.value.address) {
      ctx.note(`warning: --keypair is the wallet that made the deposit: the relay sees it log in for this withdrawal (use a fresh one: keygen --out <file>)`);
    }
    describeLookup(ctx, lookup.value);
    if (lookup.value.kind === "decoys") {
      // GET /networks is public and names no note: whether this network has a chain the wallet could read instead.
      const networks = await ctx.client.networks();
      const bound = networks.ok ? networks.value.find((n) => n.name === note.value.network) : undefined;
      if (bound && !bound.sandbox)
        ctx.note(
          `the relay runs ${note.value.network} on program ${bound.programId}: give --rpc <url> to read the path from the chain and ask the relay nothing about the note`,
        );
    }

    const r = await withdraw(ctx.client, note.value, recipient.value, {
      wallet: kp.value,
      lookup: lookup.value,
      hasher: await ctx.hasher(),
      prove: artifactsInput(ctx, values),
      onStage: (s) => ctx.note(`${STAGE_TEXT[s]}...`),
      ...(swap.value ? { swapTo: swap.value.outputMint } : {}),
      ...(swap.value?.minOut !== undefined ? { minOut: swap.value.minOut } : {}),
    });
    if (!r.ok) {
      const e = r.error;
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
          return ctx.fail(Exit.Refused, `the note was already withdrawn (nullifier account ${e.address})`, {
            error: "NullifierAlreadySpent",
            nullifierAccount: e.address,
          });
        case "merkle":
          return noteProofFailure(ctx, e.error);
        case "prove":
          return proveFailure(ctx, e.error);
        case "relay":
          if (e.landed === true) {
            ctx.note(`the relay's answer was ${e.failure.status} ${e.failure.error}, but the note's nullifier is now spent: the withdrawal landed`);
            return ctx.done([`withdrawn to ${recipient.value} (the relay did not send the transaction signature)`], {
              withdrawn: true,
              signature: null,
              recipient: recipient.value,
              relayAnswer: { status: e.failure.status, error: e.failure.error },
            });
          }
          if (e.landed === false) ctx.note("the note's nullifier is still unspent: nothing was withdrawn, and running `relay` again is safe");
          if (e.landed === null) ctx.note("whether the withdrawal landed is unknown: run `nullifier --note` before relaying again");
          if (e.failure.error === "SlippageExceeded")
            ctx.note("the price moved below the proof's minOut before the swap: nothing was withdrawn; run `relay` again for a fresh quote");
          if (e.failure.error === "FeeTooLow")
            ctx.note("the relay raised its fee while the proof was built: nothing was withdrawn; run `relay` again to prove for the new fee");
          return ctx.apiFailure(swapTo === undefined ? "relay" : "relay_swap", e.failure);
      }
    }
    const { signature, proof: p, quote: swapQuote, terms } = r.value;
    const lines = [`withdrawn: ${p.amount} of ${p.mint} on ${p.network} to ${p.recipient}`, `signature: ${signature}`];
    if (swapQuote && terms.minOut !== null) {
      lines.push(
        `fee: ${terms.fee} of ${p.mint} to relayer ${terms.relayer}; ${terms.toRecipient} swapped into ${swapQuote.outputMint}: ` +
          `about ${swapQuote.outAmount}, at least ${terms.minOut} (bound by the proof)`,
      );
    } else lines.push(`fee: ${terms.fee} to relayer ${terms.relayer}; the recipient receives ${terms.toRecipient}`);
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
      relayer: terms.relayer,
      fee: terms.fee.toString(),
      toRecipient: terms.toRecipient.toString(),
    };
    if (swapQuote) {
      json.swap = {
        outputMint: swapQuote.outputMint,
        quotedOut: swapQuote.outAmount,
        minOut: terms.minOut?.toString() ?? null,
        priceImpactPct: swapQuote.priceImpactPct,
      };
    }
    return ctx.done(lines, json);
  },
};
