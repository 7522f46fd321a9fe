import { Keypair, writeKeypairFile } from "../../sdk/keypair";
import { login } from "../../sdk/login";
import { Exit } from "../context";
import { amountInput, keypairInput, mintInput, resolvePath, walletInput } from "../inputs";
import { str, type CommandSpec } from "../spec";

const keypairOption = { type: "string", value: "file", help: "Solana CLI keypair file (JSON array of 64 bytes)" } as const;

export const keygen: CommandSpec = {
  name: "keygen",
  summary: "create a new wallet keypair file (Solana CLI format, mode 0600)",
  details: "Refuses to replace an existing file unless --force is given: a replaced key cannot be recovered.",
  options: {
    out: { type: "string", value: "file", help: "where to write the keypair", required: true },
    force: { type: "boolean", help: "replace an existing file" },
  },
  async run(ctx, values) {
    const out = str(values, "out");
    if (!out) return ctx.fail(Exit.Usage, "--out <file> is required");
    const file = resolvePath(ctx, out);
    const kp = Keypair.generate();
    const written = writeKeypairFile(file, kp, { overwrite: values.force === true });
    if (!written.ok) return ctx.fail(Exit.LocalFile, written.error);
    return ctx.done([`wrote ${file} (mode 0600)`, `address: ${kp.address}`], { address: kp.address, file });
  },
};

export const loginCommand: CommandSpec = {
  name: "login",
  summary: "sign the current time, POST /login and print the auth token",
  details: "The token goes in the x-api-auth header of /relay and /relay_swap; it lives 24 h.",
  options: { keypair: { ...keypairOption, required: true } },
  async run(ctx, values) {
    const kp = keypairInput(ctx, values);
    if (!kp.ok) return kp.code;
    const token = await login(ctx.client, kp.value);
    if (!token.ok) return ctx.apiFailure("login", token);
    const logged = await ctx.client.isLogged(token.value);
    if (!logged.ok) return ctx.apiFailure("is_logged", logged);
    if (!logged.value) return ctx.fail(Exit.Refused, "the relay issued a token that is_logged does not accept", { token: token.value });
    return ctx.done([`logged in as ${kp.value.address}`, `token: ${token.value}`], { wallet: kp.value.address, token: token.value, isLogged: logged.value });
  },
};

export const airdrop: CommandSpec = {
  name: "airdrop",
  summary: "credit sandbox test tokens to a wallet (sandbox networks only)",
  options: {
    keypair: keypairOption,
    wallet: { type: "string", value: "address", help: "credit this address instead of --keypair's" },
    mint: { type: "string", value: "address", help: "token mint", required: true },
    amount: { type: "string", value: "base units", help: "amount in the token's base units", required: true },
  },
  async run(ctx, values) {
    const wallet = walletInput(ctx, values);
    if (!wallet.ok) return wallet.code;
    const mint = mintInput(ctx, values);
    if (!mint.ok) return mint.code;
    const amount = amountInput(ctx, values);
    if (!amount.ok) return amount.code;
    const r = await ctx.client.sandboxAirdrop({ network: ctx.network, wallet: wallet.value, mint: mint.value, amount: amount.value });
    if (!r.ok) return ctx.apiFailure("airdrop", r);
    const balance = await ctx.client.sandboxBalance(ctx.network, wallet.value, mint.value);
    if (!balance.ok) return ctx.apiFailure("balance", balance);
    return ctx.done(
      [`airdropped ${amount.value} of ${mint.value} to ${wallet.value} on ${ctx.network}`, `signature: ${r.value.signature}`, `balance: ${balance.value.amount}`],
      { signature: r.value.signature, wallet: wallet.value, mint: mint.value, network: ctx.network, amount: amount.value.toString(), balance: balance.value.amount.toString() },
    );
  },
};

export const balance: CommandSpec = {
  name: "balance",
  summary: "a wallet's sandbox token balance",
  options: {
    keypair: keypairOption,
    wallet: { type: "string", value: "address", help: "look up this address instead of --keypair's" },
    mint: { type: "string", value: "address", help: "token mint", required: true },
  },
  async run(ctx, values) {
    const wallet = walletInput(ctx, values);
    if (!wallet.ok) return wallet.code;
    const mint = mintInput(ctx, values);
    if (!mint.ok) return mint.code;
    const r = await ctx.client.sandboxBalance(ctx.network, wallet.value, mint.value);
    if (!r.ok) return ctx.apiFailure("balance", r);
    return ctx.done(`${r.value.amount}`, { wallet: wallet.value, mint: mint.value, network: ctx.network, amount: r.value.amount.toString() });
  },
};
