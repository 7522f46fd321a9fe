import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { createTestSwapPool } from "../../sdk/chain";
import { Exit, type CliContext, type JsonValue } from "../context";
import { amountInput, rpcInput, unitsInput, type Input } from "../inputs";
import { str, type CommandSpec, type ParsedValues } from "../spec";

/** Two required mint flags, each a base58 public key, checked in order. */
function mintPair(ctx: CliContext, values: ParsedValues, names: [string, string]): Input<[string, string]> {
  const mints: string[] = [];
  for (const name of names) {
    const m = str(values, name);
    if (!m) return { ok: false, code: ctx.fail(Exit.Usage, `--${name} <mint> is required`) };
    const parsed = parsePublicKey(m);
    if (!parsed.ok) return { ok: false, code: ctx.fail(Exit.Usage, `--${name} ${m}: ${parsed.error}`) };
    mints.push(m);
  }
  return { ok: true, value: [mints[0]!, mints[1]!] };
}

export const quote: CommandSpec = {
  name: "quote",
  summary: "a swap quote from the relay's venue for the network (POST /jupiter)",
  details:
    "Asks what --amount base units of --input buy of --output now: the expected output, the least the quote's\n" +
    "slippage allows, the price impact (percent) and the route. Without --slippage-bps the relay applies the pair's\n" +
    "own (10 bps for two stablecoins, 50 standard, 100 volatile, 300 low liquidity). `relay --swap-to` quotes\n" +
    "depositSize minus the fee the same way before proving.",
  options: {
    input: { type: "string", value: "mint", help: "the token to sell (base58 mint)", required: true },
    output: { type: "string", value: "mint", help: "the token to buy (base58 mint)", required: true },
    amount: { type: "string", value: "base units", help: "amount of --input, in base units", required: true },
    "slippage-bps": { type: "string", value: "bps", help: "allowed slippage, 0 to 10000 (default: the pair's)" },
    dexes: { type: "string", value: "a,b", help: "only these venues, comma-separated (default: all)" },
  },
  async run(ctx, values) {
    const pair = mintPair(ctx, values, ["input", "output"]);
    if (!pair.ok) return pair.code;
    const mints = { input: pair.value[0], output: pair.value[1] };
    if (mints.input === mints.output) return ctx.fail(Exit.Usage, "--output must differ from --input");
    const amount = amountInput(ctx, values);
    if (!amount.ok) return amount.code;
    const bpsText = str(values, "slippage-bps");
    if (bpsText !== undefined && (!/^[0-9]{1,5}$/.test(bpsText) || Number(bpsText) > 10_000))
      return ctx.fail(Exit.Usage, "--slippage-bps must be a whole number from 0 to 10000");
    const dexText = str(values, "dexes");
    const dexes =
      dexText === undefined
        ? []
        : dexText
            .split(",")
            .map((d) => d.trim())
            .filter((d) => d.length > 0);

    const r = await ctx.client.quote({
      inputMint: mints.input,
      outputMint: mints.output,
      amount: amount.value,
      network: ctx.network,
      dexes,
      ...(bpsText !== undefined ? { slippageBps: Number(bpsText) } : {}),
    });
    if (!r.ok) return ctx.apiFailure("quote", r);
    const q = r.value;
    const least =
      q.otherAmountThreshold !== undefined
        ? `at least ${q.otherAmountThreshold}${q.slippageBps !== undefined ? ` (${q.slippageBps} bps slippage)` : ""}; `
        : "";
    const lines = [
      `quote on ${ctx.network}: ${q.inAmount} of ${q.inputMint} -> ${q.outAmount} of ${q.outputMint}`,
      `${least}price impact ${q.priceImpactPct} %`,
      ...q.routePlan.map((s) => {
        const fee = s.swapInfo.feeAmount !== undefined ? ` (fee ${s.swapInfo.feeAmount}${s.swapInfo.feeMint ? ` of ${s.swapInfo.feeMint}` : ""})` : "";
        return `route: ${s.swapInfo.label || "?"} ${s.swapInfo.ammKey}: ${s.swapInfo.inAmount} -> ${s.swapInfo.outAmount}${fee}${s.percent !== null ? `, ${s.percent} %` : ""}`;
      }),
    ];
    return ctx.done(lines, { network: ctx.network, ...(JSON.parse(JSON.stringify(q)) as { [k: string]: JsonValue }) });
  },
};

export const swapPool: CommandSpec = {
  name: "swap-pool",
  summary: "create a test swap pool for a pair, or reset its reserves (sandbox, or the local validator with --rpc)",
  details:
    "Without --rpc: POST /sandbox/swap_pool (sandbox networks only). With --rpc: the local validator's\n" +
    "localnet_createSwapPool, a cp-swap constant-product pool (0.3 % fee) that its Jupiter-compatible API routes\n" +
    "through, so a relay whose network is on the validator can quote and relay swaps (`relay --swap-to`).",
  options: {
    "mint-a": { type: "string", value: "mint", help: "one token of the pair", required: true },
    "mint-b": { type: "string", value: "mint", help: "the other token", required: true },
    "reserve-a": { type: "string", value: "base units", help: "reserve of --mint-a", required: true },
    "reserve-b": { type: "string", value: "base units", help: "reserve of --mint-b", required: true },
    rpc: { type: "string", value: "url", help: "the local validator's JSON-RPC endpoint (e.g. http://127.0.0.1:8899) instead of the relay's sandbox" },
  },
  async run(ctx, values) {
    const pair = mintPair(ctx, values, ["mint-a", "mint-b"]);
    if (!pair.ok) return pair.code;
    const mints = { "mint-a": pair.value[0], "mint-b": pair.value[1] };
    if (mints["mint-a"] === mints["mint-b"]) return ctx.fail(Exit.Usage, "--mint-b must differ from --mint-a");
    const reserves: bigint[] = [];
    for (const name of ["reserve-a", "reserve-b"]) {
      const r = unitsInput(ctx, values, name);
      if (!r.ok) return r.code;
      if (r.value === undefined) return ctx.fail(Exit.Usage, `--${name} <base units> is required`);
      reserves.push(r.value);
    }
    const [reserveA, reserveB] = reserves as [bigint, bigint];
    const mintA = mints["mint-a"];
    const mintB = mints["mint-b"];
    const rpc = rpcInput(ctx, values);
    if (!rpc.ok) return rpc.code;
    if (rpc.value) {
      const r = await createTestSwapPool(rpc.value, { mintA, mintB, reserveA, reserveB });
      if (!r.ok)
        return ctx.fail(r.error.kind === "unreachable" || r.error.kind === "malformed" ? Exit.Unreachable : Exit.Refused, `swap-pool: ${r.error.message}`, {
          error: r.error.kind,
        });
      const p = r.value;
      return ctx.done([`swap pool ${p.pool} on ${rpc.value}: ${p.reserveA} of ${p.mintA} and ${p.reserveB} of ${p.mintB}`], {
        rpc: rpc.value,
        pool: p.pool,
        mintA: p.mintA,
        mintB: p.mintB,
        reserveA: p.reserveA.toString(),
        reserveB: p.reserveB.toString(),
      });
    }
    const r = await ctx.client.sandboxSwapPool({ network: ctx.network, mintA, mintB, reserveA, reserveB });
    if (!r.ok) return ctx.apiFailure("swap_pool", r);
    return ctx.done([`swap pool on ${ctx.network}: ${reserveA} of ${mintA} and ${reserveB} of ${mintB}`], {
      network: ctx.network,
      mintA,
      mintB,
      reserveA: reserveA.toString(),
      reserveB: reserveB.toString(),
    });
  },
};
