import { NATIVE_MINT } from "../../../src-shared/pool-program";
import { chainConnection, lamportsOf, mintTestTokens, requestSol, tokenBalanceOf } from "../../sdk/chain";
import { Keypair, writeKeypairFile } from "../../sdk/keypair";
import { login } from "../../sdk/login";
import { Exit, type CliContext, type ExitCode, type JsonValue } from "../context";
import { amountInput, keypairInput, mintInput, resolvePath, rpcInput, unitsInput, walletInput } from "../inputs";
import { str, type CommandSpec, type ParsedValues } from "../spec";

/** SOL `airdrop --rpc` asks for when --lamports is not given: fees and rent for many deposits. */
const DEFAULT_AIRDROP_LAMPORTS = 1_000_000_000n;
const rpcOption = {
  type: "string",
  value: "url",
  help: "a Solana JSON-RPC endpoint (e.g. the local validator, http://127.0.0.1:8899) instead of the relay's sandbox",
} as const;

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
  summary: "test funds: sandbox tokens through the relay, or with --rpc SOL and tokens on the local validator",
  details: [
    "Without --rpc: POST /sandbox/airdrop (sandbox networks only); --mint and --amount are required.",
    "With --rpc: SOL for fees and rent through requestAirdrop (--lamports, default 1 SOL; 0 for none), and with",
    "--mint and --amount test tokens into the wallet's associated token account through the local validator's",
    "localnet_mintTo (wrapped SOL included). A real cluster has no such method: only the local validator mints test tokens.",
  ].join("\n"),
  options: {
    keypair: keypairOption,
    wallet: { type: "string", value: "address", help: "credit this address instead of --keypair's" },
    mint: { type: "string", value: "address", help: "token mint (required without --rpc)" },
    amount: { type: "string", value: "base units", help: "amount in the token's base units (required with --mint)" },
    rpc: rpcOption,
    lamports: { type: "string", value: "n", help: "with --rpc: SOL to request, in lamports (default 1000000000; 0 for none)" },
  },
  async run(ctx, values) {
    const wallet = walletInput(ctx, values);
    if (!wallet.ok) return wallet.code;
    const rpc = rpcInput(ctx, values);
    if (!rpc.ok) return rpc.code;
    if (rpc.value) return airdropOnChain(ctx, values, wallet.value, rpc.value);
    if (str(values, "lamports") !== undefined) return ctx.fail(Exit.Usage, "--lamports goes with --rpc (the sandbox credits tokens only)");
    const mint = mintInput(ctx, values);
    if (!mint.ok) return mint.code;
    const amount = amountInput(ctx, values);
    if (!amount.ok) return amount.code;
    const r = await ctx.client.sandboxAirdrop({ network: ctx.network, wallet: wallet.value, mint: mint.value, amount: amount.value });
    if (!r.ok) return ctx.apiFailure("airdrop", r);
    const balance = await ctx.client.sandboxBalance(ctx.network, wallet.value, mint.value);
    if (!balance.ok) return ctx.apiFailure("balance", balance);
    return ctx.done(
      [
        `airdropped ${amount.value} of ${mint.value} to ${wallet.value} on ${ctx.network}`,
        `signature: ${r.value.signature}`,
        `balance: ${balance.value.amount}`,
      ],
      {
        signature: r.value.signature,
        wallet: wallet.value,
        mint: mint.value,
        network: ctx.network,
        amount: amount.value.toString(),
        balance: balance.value.amount.toString(),
      },
    );
  },
};

/** `airdrop --rpc`: tokens first (a cluster without localnet_mintTo stops there, before any SOL is asked for), then SOL. */
async function airdropOnChain(ctx: CliContext, values: ParsedValues, wallet: string, rpcUrl: string): Promise<ExitCode> {
  const lamports = unitsInput(ctx, values, "lamports", 0n);
  if (!lamports.ok) return lamports.code;
  const sol = lamports.value ?? DEFAULT_AIRDROP_LAMPORTS;
  let tokens: { mint: string; amount: bigint } | null = null;
  if (str(values, "mint") !== undefined || str(values, "amount") !== undefined) {
    const mint = mintInput(ctx, values);
    if (!mint.ok) return mint.code;
    const amount = amountInput(ctx, values);
    if (!amount.ok) return amount.code;
    tokens = { mint: mint.value, amount: amount.value };
  }
  if (!tokens && sol === 0n) return ctx.fail(Exit.Usage, "nothing to airdrop: give --mint and --amount, or --lamports above 0");

  const lines: string[] = [];
  const json: Record<string, JsonValue> = { wallet, rpc: rpcUrl };
  const connection = chainConnection(rpcUrl);
  if (tokens) {
    const minted = await mintTestTokens(rpcUrl, wallet, tokens.mint, tokens.amount);
    if (!minted.ok) {
      const code = minted.error.kind === "unreachable" || minted.error.kind === "malformed" ? Exit.Unreachable : Exit.Refused;
      return ctx.fail(code, `airdrop: ${minted.error.message}`, { error: minted.error.kind });
    }
    lines.push(`minted ${tokens.amount} of ${tokens.mint} to ${wallet} (token account ${minted.value.tokenAccount})`, `token balance: ${minted.value.balance}`);
    json.mint = tokens.mint;
    json.amount = tokens.amount.toString();
    json.tokenAccount = minted.value.tokenAccount;
    json.tokenBalance = minted.value.balance.toString();
  }
  if (sol > 0n) {
    const r = await requestSol(connection, wallet, sol);
    if (!r.ok) return ctx.fail(Exit.Refused, `airdrop: ${r.error}`, { error: "requestAirdrop" });
    let balance: bigint;
    try {
      balance = await lamportsOf(connection, wallet);
    } catch (e) {
      return ctx.fail(Exit.Unreachable, `getBalance: ${(e as Error).message}`);
    }
    lines.push(`airdropped ${sol} lamports to ${wallet}`, `signature: ${r.value}`, `SOL balance: ${balance} lamports`);
    json.lamports = sol.toString();
    json.signature = r.value;
    json.solBalance = balance.toString();
  }
  return ctx.done(lines, json);
}

export const balance: CommandSpec = {
  name: "balance",
  summary: "a wallet's token balance: sandbox, or on chain with --rpc",
  details: "With --rpc: the balance of the wallet's associated token account of --mint (0 when it has none), or without --mint its SOL in lamports.",
  options: {
    keypair: keypairOption,
    wallet: { type: "string", value: "address", help: "look up this address instead of --keypair's" },
    mint: { type: "string", value: "address", help: "token mint (required without --rpc)" },
    rpc: rpcOption,
  },
  async run(ctx, values) {
    const wallet = walletInput(ctx, values);
    if (!wallet.ok) return wallet.code;
    const rpc = rpcInput(ctx, values);
    if (!rpc.ok) return rpc.code;
    if (rpc.value && str(values, "mint") === undefined) {
      try {
        const lamports = await lamportsOf(chainConnection(rpc.value), wallet.value);
        return ctx.done(`${lamports}`, { wallet: wallet.value, rpc: rpc.value, mint: null, lamports: lamports.toString() });
      } catch (e) {
        return ctx.fail(Exit.Unreachable, `getBalance: ${(e as Error).message}`);
      }
    }
    const mint = mintInput(ctx, values);
    if (!mint.ok) return mint.code;
    if (rpc.value) {
      try {
        const amount = await tokenBalanceOf(chainConnection(rpc.value), wallet.value, mint.value);
        return ctx.done(`${amount}`, { wallet: wallet.value, rpc: rpc.value, mint: mint.value, amount: amount.toString(), native: mint.value === NATIVE_MINT });
      } catch (e) {
        return ctx.fail(Exit.Unreachable, `token balance: ${(e as Error).message}`);
      }
    }
    const r = await ctx.client.sandboxBalance(ctx.network, wallet.value, mint.value);
    if (!r.ok) return ctx.apiFailure("balance", r);
    return ctx.done(`${r.value.amount}`, { wallet: wallet.value, mint: mint.value, network: ctx.network, amount: r.value.amount.toString() });
  },
};
