import { parsePublicKey, parseSignature } from "../../../src-shared/encoding/base58";
import { getComplianceSignature } from "../../sdk/compliance";
import { revertDeposit } from "../../sdk/revert";
import { Exit } from "../context";
import { keypairInput } from "../inputs";
import { str, type CommandSpec } from "../spec";

const keypairOption = { type: "string", value: "file", help: "the wallet's Solana CLI keypair file", required: true } as const;

export const ofacSignature: CommandSpec = {
  name: "ofac-signature",
  summary: "log in, get a compliance signature for the wallet and verify it against the relay's compliance key",
  details: [
    "The answer is `<expiresAtUnix>.<base58 ed25519 signature>` over `OFAC:<network>:<wallet>:<expiresAtUnix>`,",
    "valid 120 s: get a fresh one for each withdrawal. A listed wallet is refused with 403 `OFAC check failed` (exit 1).",
    "Without --public-key the key is read from GET /compliance/public_key; pin it to trust only that key.",
  ].join("\n"),
  options: {
    keypair: keypairOption,
    "public-key": { type: "string", value: "base58", help: "verify against this compliance key instead of the one the relay publishes" },
  },
  async run(ctx, values) {
    const kp = keypairInput(ctx, values);
    if (!kp.ok) return kp.code;
    const pinned = str(values, "public-key");
    if (pinned !== undefined && !parsePublicKey(pinned).ok) return ctx.fail(Exit.Usage, `--public-key ${pinned} is not a base58 public key`);
    const r = await getComplianceSignature(ctx.client, kp.value, ctx.network, pinned ? { publicKey: pinned } : {});
    if (!r.ok) {
      const e = r.error;
      if (e.stage === "login") return ctx.apiFailure("login", e.failure);
      if (e.stage === "signature") return ctx.apiFailure("get_ofac_signature", e.failure);
      if (e.stage === "public-key") return ctx.apiFailure("compliance/public_key", e.failure);
      return ctx.fail(Exit.Unreachable, `the relay's compliance signature does not check out (${e.failure.reason}): ${e.failure.message}`, {
        raw: e.raw,
        reason: e.failure.reason,
      });
    }
    const s = r.value;
    return ctx.done(
      [
        `compliance signature for ${kp.value.address} on ${ctx.network}:`,
        s.raw,
        `expires at ${new Date(s.expiresAt * 1000).toISOString()} (in ${s.remainingSec} s)`,
        `verified against compliance key ${s.publicKey}`,
      ],
      {
        wallet: kp.value.address,
        network: ctx.network,
        signature: s.raw,
        expiresAt: s.expiresAt,
        remainingSec: s.remainingSec,
        publicKey: s.publicKey,
        verified: true,
      },
    );
  },
};

export const revert: CommandSpec = {
  name: "revert",
  summary: "log in and revert a failed deposit: its funds go back to the depositing wallet",
  details: [
    "Signs `Revert deposit: <txsig>` with the keypair, which must be the deposit's. The relay refuses an indexed",
    "deposit (AlreadyIndexed: withdraw it with `relay`), another wallet's (403 NotDepositor) and a second revert",
    "(NullifierSpent). A `deposit` that answered status `failed` prints the signature to pass here.",
  ].join("\n"),
  options: {
    keypair: keypairOption,
    deposit: { type: "string", value: "txsig", help: "the deposit transaction's signature (base58)", required: true },
  },
  async run(ctx, values) {
    const depositSig = str(values, "deposit");
    if (!depositSig) return ctx.fail(Exit.Usage, "--deposit <txsig> is required (the deposit transaction's signature)");
    if (!parseSignature(depositSig).ok) return ctx.fail(Exit.Usage, `--deposit ${depositSig.slice(0, 100)} is not a transaction signature (64 bytes, base58)`);
    const kp = keypairInput(ctx, values);
    if (!kp.ok) return kp.code;
    const r = await revertDeposit(ctx.client, kp.value, depositSig, ctx.network);
    if (!r.ok) {
      const e = r.error;
      if (e.stage === "input") return ctx.fail(Exit.Usage, e.message);
      return ctx.apiFailure(e.stage === "login" ? "login" : "revert", e.failure);
    }
    return ctx.done([`reverted deposit ${depositSig} on ${ctx.network}; the funds are back with ${kp.value.address}`, `signature: ${r.value.signature}`], {
      reverted: true,
      deposit: depositSig,
      network: ctx.network,
      wallet: kp.value.address,
      signature: r.value.signature,
    });
  },
};
