import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalValidator, type LocalValidator } from "../validator";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const WSOL = "So11111111111111111111111111111111111111112";
let validator: LocalValidator;

beforeAll(async () => {
  validator = await startLocalValidator({ port: 0, slotMs: 50 });
  await validator.createSwapPool(USDC, WSOL, 1_000_000_000n, 5_000_000_000n);
});
afterAll(async () => {
  await validator?.close();
});

const quote = async (extra: string) => {
  const r = await fetch(`${validator.jupiterUrl}/quote?inputMint=${USDC}&outputMint=${WSOL}&amount=1000000&slippageBps=50${extra}`);
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
};

describe("the local Jupiter API", () => {
  it("bounds a route by maxAccounts as Jupiter does: the cp-swap route needs its instruction's accounts", async () => {
    const ok = await quote("&maxAccounts=7");
    expect(ok.status).toBe(200);
    const ix = await fetch(`${validator.jupiterUrl}/swap-instructions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ userPublicKey: USDC, quoteResponse: ok.json }),
    });
    expect(((await ix.json()) as { swapInstruction: { accounts: unknown[] } }).swapInstruction.accounts).toHaveLength(7);
    expect(await quote("&maxAccounts=6")).toMatchObject({ status: 400, json: { errorCode: "COULD_NOT_FIND_ANY_ROUTE" } });
    expect(await quote("&maxAccounts=lots")).toMatchObject({ status: 400, json: { errorCode: "INVALID_REQUEST" } });
    expect((await quote("")).status).toBe(200);
  });

  it("pads every route with the given accounts and their lookup table, and then needs maxAccounts of 7 + their number", async () => {
    const accounts = Array.from({ length: 5 }, (_, i) => new PublicKey(new Uint8Array(32).fill(i + 1)).toBase58());
    const lookupTable = new PublicKey(new Uint8Array(32).fill(99)).toBase58();
    validator.jupiter.padRoutes({ accounts, lookupTable });
    try {
      expect(await quote("&maxAccounts=11")).toMatchObject({ status: 400, json: { errorCode: "COULD_NOT_FIND_ANY_ROUTE" } });
      const ok = await quote("&maxAccounts=12");
      expect(ok.status).toBe(200);
      const ix = await fetch(`${validator.jupiterUrl}/swap-instructions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ userPublicKey: USDC, quoteResponse: ok.json }),
      });
      const body = (await ix.json()) as { swapInstruction: { accounts: { pubkey: string; isWritable: boolean }[] }; addressLookupTableAddresses: string[] };
      expect(body.swapInstruction.accounts.slice(7)).toEqual(accounts.map((pubkey) => ({ pubkey, isSigner: false, isWritable: false })));
      expect(body.addressLookupTableAddresses).toEqual([validator.swapPool(USDC, WSOL)!.lookupTable, lookupTable]);
    } finally {
      validator.jupiter.padRoutes(null);
    }
  });
});
