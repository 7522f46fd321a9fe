import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signEd25519, verifyEd25519 } from "../../../src-shared/crypto/ed25519";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { encodeBase58, parsePublicKey, parseSignature } from "../../../src-shared/encoding/base58";
import { sandboxDepositMessage } from "../../../src-shared/messages";
import { encodePoolInstruction } from "../../../src-shared/pool-program";
import { vaultAddress } from "../../../src-shared/solana/pda";
import { cpAmountOut } from "../../../src-shared/swap/constant-product";
import type { SwapQuote } from "../../core/swap/quote";
import type { WithdrawalSubmission } from "../../ports/chain";
import { SandboxChain } from "../chain-sandbox/sandbox-chain";
import { Signer } from "../../../src-shared/node/keypair-file";
import { DurableDb } from "../storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../storage-sqljs/schema-migrations";
import { SandboxSwapVenue } from "./venue";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SOL = "So11111111111111111111111111111111111111112";
const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const key = (s: string): Uint8Array => {
  const r = parsePublicKey(s);
  if (!r.ok) throw new Error(s);
  return r.value;
};
const PROGRAM = key("FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ");
const VAULT = vaultAddress(PROGRAM, key(USDC));

let dir: string;
let db: DurableDb;
let chain: SandboxChain;
let venue: SandboxSwapVenue;
const relayer = new Signer(nacl.sign.keyPair().secretKey);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-swap-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS });
  // The chain's proof check is the verifier's job; here every proof passes so the swap leg is what is tested.
  const verifier = { verify: async () => true, close: async () => {} };
  chain = new SandboxChain("mainnet", db, await createPoseidonHasher(), relayer, PROGRAM, verifier);
  venue = new SandboxSwapVenue(chain.swapPools);
  await chain.swapPools.set(USDC, SOL, 1_000_000_000n, 5_000_000_000n, 1);
  // Funds in the USDC vault to withdraw from, and a root the tree knows.
  const depositor = nacl.sign.keyPair();
  const wallet = encodeBase58(depositor.publicKey);
  await chain.airdrop(wallet, USDC, 100_000_000n);
  const precommitment = new Uint8Array(32).fill(7);
  const r = await chain.deposit({
    mint: USDC,
    mintBytes: key(USDC),
    amount: 100_000_000n,
    precommitment,
    wallet,
    walletBytes: depositor.publicKey,
    signature: signEd25519(sandboxDepositMessage("mainnet", USDC, 100_000_000n, precommitment), depositor.secretKey),
  });
  if (!r.ok || r.value.status !== "indexed") throw new Error("deposit");
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ask = (amount: bigint, inputMint = USDC, outputMint = SOL, dexes: string[] = []) => ({ inputMint, outputMint, amount, slippageBps: 50, dexes });

describe("SandboxSwapVenue.quote", () => {
  it("quotes the constant-product formula exactly: output, impact in percent, one sandbox-cp step with the fee in the input mint", async () => {
    const r = await venue.quote(ask(10_000_000n));
    if (!r.ok) throw new Error(r.error.detail);
    const out = (10_000_000n * 997n * 5_000_000_000n) / (1_000_000_000n * 1000n + 10_000_000n * 997n);
    expect(r.value).toMatchObject({
      venue: "sandbox",
      inAmount: 10_000_000n,
      outAmount: out,
      otherAmountThreshold: (out * 9950n) / 10_000n,
      slippageBps: 50,
      priceImpactPct: (100 * 10_000_000) / (1_000_000_000 + 10_000_000),
    });
    expect(r.value.routePlan).toEqual([
      {
        swapInfo: {
          ammKey: chain.swapPools.ammKeyOf(USDC, SOL),
          label: "sandbox-cp",
          inputMint: USDC,
          outputMint: SOL,
          inAmount: 10_000_000n,
          outAmount: out,
          feeAmount: 30_000n,
          feeMint: USDC,
        },
        percent: 100,
      },
    ]);
  });

  it("quotes the other direction against the same pool", async () => {
    const r = await venue.quote(ask(1_000_000n, SOL, USDC));
    expect(r.ok && r.value.outAmount).toBe(cpAmountOut(1_000_000n, 5_000_000_000n, 1_000_000_000n));
    expect(chain.swapPools.ammKeyOf(SOL, USDC)).toBe(chain.swapPools.ammKeyOf(USDC, SOL));
  });

  it("answers InsufficientLiquidity without a pool, past half the reserve, or outside the asked dexes", async () => {
    for (const q of [ask(1000n, USDC, BONK), ask(1_100_000_000n), ask(1000n, USDC, SOL, ["Raydium"])]) {
      const r = await venue.quote(q);
      expect(!r.ok && r.error.kind).toBe("InsufficientLiquidity");
    }
    expect((await venue.quote(ask(1000n, USDC, SOL, ["Raydium", "sandbox-cp"]))).ok).toBe(true);
  });
});

describe("SandboxChain.submitWithdrawal with a swap leg", () => {
  const submission = (nullifierByte: number, swap: WithdrawalSubmission["swap"]): WithdrawalSubmission => ({
    mint: USDC,
    mintBytes: key(USDC),
    recipient: RECIPIENT,
    root: ROOT(),
    nullifierHash: new Uint8Array(32).fill(nullifierByte),
    proof: new Uint8Array(256),
    depositSize: 10_000_000n,
    changeCommitment: new Uint8Array(32).fill(nullifierByte).fill(0, 0, 1),
    fee: 25_000n,
    ...(swap ? { swap } : {}),
  });
  const RECIPIENT = encodeBase58(nacl.sign.keyPair().publicKey);
  const ROOT = (): Uint8Array => (chain as unknown as { pools: Map<string, { root(): Uint8Array }> }).pools.get(USDC)!.root();
  const leg = (minOut: bigint) => ({ outputMint: SOL, minOut, quote: {} as SwapQuote });
  const snapshot = () => {
    const amm = chain.swapPools.ammKeyOf(USDC, SOL);
    return {
      vault: chain.balance(VAULT, USDC),
      poolUsdc: chain.balance(amm, USDC),
      poolSol: chain.balance(amm, SOL),
      recipientSol: chain.balance(RECIPIENT, SOL),
      recipientUsdc: chain.balance(RECIPIENT, USDC),
      relayerUsdc: chain.balance(relayer.address, USDC),
      writes: db.stats.writes,
    };
  };

  it("moves vault -> pool -> recipient, pays the fee in the input mint, spends the nullifier, in one write", async () => {
    const before = snapshot();
    const out = cpAmountOut(10_000_000n - 25_000n, before.poolUsdc, before.poolSol);
    const r = await chain.submitWithdrawal(submission(1, leg(out)));
    expect(r).toMatchObject({ ok: true, outAmount: out });
    const after = snapshot();
    expect(after).toEqual({
      vault: before.vault - 10_000_000n,
      poolUsdc: before.poolUsdc + 9_975_000n,
      poolSol: before.poolSol - out,
      recipientSol: before.recipientSol + out,
      recipientUsdc: before.recipientUsdc,
      relayerUsdc: before.relayerUsdc + 25_000n,
      writes: before.writes + 1,
    });
    expect(await chain.isNullifierSpent(USDC, new Uint8Array(32).fill(1))).toBe(true);
  });

  it("signs withdraw_swap (with its change commitment) then assert_swap_out { minOut, nullifierHash } (protocol v3's escrow layout)", async () => {
    const before = snapshot();
    const out = cpAmountOut(9_975_000n, before.poolUsdc, before.poolSol);
    const minOut = out - 1_000n;
    const s = submission(5, leg(minOut));
    const r = await chain.submitWithdrawal(s);
    if (!r.ok) throw new Error(r.detail);
    const slot = (chain as unknown as { slot: number }).slot;
    const args = {
      proof: s.proof,
      root: s.root,
      nullifierHash: s.nullifierHash,
      recipient: key(RECIPIENT),
      amount: s.depositSize,
      fee: s.fee,
      changeCommitment: s.changeCommitment,
    };
    const data = [
      new TextEncoder().encode(`sandbox-tx|mainnet|${slot}|`),
      encodePoolInstruction({ name: "withdraw_swap", ...args, outputMint: key(SOL), minOut }),
      encodePoolInstruction({ name: "assert_swap_out", minOut, nullifierHash: s.nullifierHash }),
    ];
    const message = Uint8Array.from(data.flatMap((d) => [...d]));
    const sig = parseSignature(r.signature);
    expect(sig.ok && verifyEd25519(message, sig.value, relayer.publicKey)).toBe(true);
    expect(chain.balance(RECIPIENT, SOL)).toBe(before.recipientSol + out);
  });

  it("refuses SlippageExceeded below the minimum, saying what it would have delivered, and changes nothing", async () => {
    const before = snapshot();
    const out = cpAmountOut(9_975_000n, before.poolUsdc, before.poolSol);
    const r = await chain.submitWithdrawal(submission(2, leg(out + 1n)));
    expect(r).toMatchObject({ ok: false, rejection: "SlippageExceeded", outAmount: out });
    expect(snapshot()).toEqual(before);
    expect(await chain.isNullifierSpent(USDC, new Uint8Array(32).fill(2))).toBe(false);
  });

  it("refuses InsufficientLiquidity when the output would pass half the reserve, or the pair has no pool, and changes nothing", async () => {
    await chain.swapPools.set(USDC, SOL, 1_000_000n, 1_000_000n, 2);
    const before = snapshot();
    expect(await chain.submitWithdrawal(submission(3, leg(0n)))).toMatchObject({ ok: false, rejection: "InsufficientLiquidity" });
    expect(await chain.submitWithdrawal(submission(3, { outputMint: BONK, minOut: 0n, quote: {} as SwapQuote }))).toMatchObject({
      ok: false,
      rejection: "InsufficientLiquidity",
    });
    expect(snapshot()).toEqual(before);
    expect(await chain.isNullifierSpent(USDC, new Uint8Array(32).fill(3))).toBe(false);
  });

  it("POST /sandbox/swap_pool semantics: setting a pool again replaces its reserves", async () => {
    await chain.swapPools.set(SOL, USDC, 7n, 9n, 3);
    expect(chain.swapPools.reserves(USDC, SOL)).toEqual({ ammKey: chain.swapPools.ammKeyOf(USDC, SOL), reserveIn: 9n, reserveOut: 7n });
  });

  it("leaves a withdrawal without a swap leg as it was", async () => {
    const before = snapshot();
    const r = await chain.submitWithdrawal(submission(4, undefined));
    expect(r).toEqual({ ok: true, signature: expect.any(String), changeLeafIndex: expect.any(Number) });
    expect(snapshot()).toMatchObject({ recipientUsdc: before.recipientUsdc + 9_975_000n, poolUsdc: before.poolUsdc, poolSol: before.poolSol });
  });
});
