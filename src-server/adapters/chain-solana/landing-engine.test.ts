import { ComputeBudgetInstruction, PublicKey, TransactionInstruction, type VersionedTransaction } from "@solana/web3.js";
import { Buffer } from "buffer";
import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import { defaultSolanaConfig, WRAPPED_SOL_MINT, type SolanaNetworkConfig } from "../../config/schema";
import type { SubmissionAttempt } from "../../ports/chain";
import { Signer } from "../../../src-shared/node/keypair-file";
import { FakeRpc } from "../../../tests/support/fake-solana-rpc";
import { computeUnitLimit, decidePrice, parseDecimal, percentileFee, priorityFeeLamports } from "./fee-policy";
import { LandingEngine, type LandingRequest } from "./landing-engine";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const PROGRAM = "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ";
const WRITABLE = new PublicKey(Uint8Array.from({ length: 32 }, (_, i) => i + 1));
const RENT_81 = (128 + 81) * 6960;

const signer = new Signer(nacl.sign.keyPair().secretKey);

function engine(rpc: FakeRpc, over: Partial<SolanaNetworkConfig> = {}, timing: { unknownAfterMs?: number; preSendRetryMs?: number } = {}) {
  const cfg = { ...defaultSolanaConfig(), rebroadcastMs: 20, ...over };
  const lines: string[] = [];
  const e = new LandingEngine(rpc, signer, cfg, { pollMs: 5, backoffMs: 2, maxBackoffMs: 10, unknownAfterMs: 2_000, preSendRetryMs: 50, ...timing }, (l) =>
    lines.push(l),
  );
  return { e, lines };
}

function request(over: Partial<LandingRequest> = {}): LandingRequest & { seen: SubmissionAttempt[] } {
  const seen: SubmissionAttempt[] = [];
  return {
    instructions: [
      new TransactionInstruction({
        programId: new PublicKey(PROGRAM),
        keys: [{ pubkey: WRITABLE, isSigner: false, isWritable: true }],
        data: Buffer.from([1, 2, 3]),
      }),
    ],
    createdAccountSizes: [81],
    feeBudget: { mint: WRAPPED_SOL_MINT, fee: 10_000_000n },
    observer: { attempt: async (a) => (seen.push(a), true) },
    label: "test",
    seen,
    ...over,
  };
}

function budget(tx: VersionedTransaction): { limit: number; price: number } {
  const keys = tx.message.staticAccountKeys;
  const ixs = tx.message.compiledInstructions.map(
    (c) => new TransactionInstruction({ programId: keys[c.programIdIndex]!, keys: [], data: Buffer.from(c.data) }),
  );
  return {
    limit: ComputeBudgetInstruction.decodeSetComputeUnitLimit(ixs[0]!).units,
    price: Number(ComputeBudgetInstruction.decodeSetComputeUnitPrice(ixs[1]!).microLamports),
  };
}

describe("fee policy", () => {
  it("parses decimal prices, ranks percentiles and computes limits", () => {
    expect(parseDecimal("1")).toEqual({ num: 1n, den: 1n });
    expect(parseDecimal("0.0061")).toEqual({ num: 61n, den: 10000n });
    expect(parseDecimal("-1")).toBeNull();
    expect(parseDecimal("1e3")).toBeNull();
    expect(percentileFee([], 75)).toBe(0);
    expect(percentileFee([1000, 0, 30, 10, 20], 75)).toBe(30);
    expect(percentileFee([5, 7], 100)).toBe(7);
    expect(percentileFee([5, 7], 0)).toBe(5);
    expect(computeUnitLimit(100_000, 1.2)).toBe(120_300);
    expect(computeUnitLimit(2_000_000, 1.2)).toBe(1_400_000);
    expect(priorityFeeLamports(49, 120_300)).toBe(6);
  });

  it("keeps the cost under the fee in the pool mint", () => {
    // 1 base unit = 2 lamports: a fee of 10 000 units is worth 20 000 lamports.
    const base = { signatures: 1, unitLimit: 200_000, rentLamports: 10_000, wantedPrice: 1_000_000, maxPrice: 10_000_000, allowLoss: false };
    const d = decidePrice({ ...base, budget: { fee: 10_000n, lamportsPerUnit: "2" } });
    // 20 000 − 5 000 − 10 000 = 5 000 lamports of priority at most → price ≤ 5000e6 / 200 000 = 25 000.
    expect(d).toMatchObject({ ok: true, price: 25_000, cappedBy: "fee", costLamports: 20_000 });
    expect(decidePrice({ ...base, budget: { fee: 7_000n, lamportsPerUnit: "2" } })).toMatchObject({ ok: false });
    expect(decidePrice({ ...base, budget: { fee: 7_000n, lamportsPerUnit: "2" }, allowLoss: true })).toMatchObject({ ok: true, price: 1_000_000 });
    expect(decidePrice({ ...base, budget: { fee: 7_000n, lamportsPerUnit: undefined } })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("lamportsPerUnit"),
    });
    expect(decidePrice({ ...base, budget: null })).toMatchObject({ ok: true, price: 1_000_000, cappedBy: null });
    expect(decidePrice({ ...base, maxPrice: 10, budget: null })).toMatchObject({ ok: true, price: 10, cappedBy: "config" });
  });
});

describe("LandingEngine", () => {
  it("rebroadcasts a dropped transaction until it lands, once", async () => {
    const rpc = new FakeRpc();
    rpc.onSend = (s) => s.count >= 2; // the first send is dropped
    const { e } = engine(rpc);
    const req = request();
    const out = await e.land(req);
    expect(out.kind).toBe("landed");
    if (out.kind !== "landed") return;
    expect(rpc.landings).toBe(1);
    expect(out.attempts).toHaveLength(1);
    expect(out.attempts[0]!.broadcasts).toBeGreaterThanOrEqual(2);
    expect(new Set(rpc.sends.map((s) => s.signature))).toEqual(new Set([out.signature]));
    // pending (durable before the first send), then the verdict.
    expect(req.seen.map((a) => a.verdict)).toEqual(["pending", "landed"]);
    expect(req.seen[0]!.broadcasts).toBe(0);
    expect(out.networkFeeLamports).toBe(5000 + priorityFeeLamports(out.attempts[0]!.computeUnitPriceMicroLamports, out.attempts[0]!.computeUnitLimit));
    expect(out.rentLamports).toBe(RENT_81);
    // A real signature of the message by the relayer, fee payer first.
    const sent = rpc.sends[0]!.tx;
    expect(sent.message.staticAccountKeys[0]!.toBase58()).toBe(signer.address);
    expect(nacl.sign.detached.verify(sent.message.serialize(), sent.signatures[0]!, signer.publicKey)).toBe(true);
  });

  it("retries with a fresh blockhash after an expiry, and the expired one never lands", async () => {
    const rpc = new FakeRpc();
    rpc.blockhashLife = 5;
    let firstBlockhash: string | null = null;
    rpc.onSend = (s) => {
      firstBlockhash ??= s.blockhash;
      return s.blockhash !== firstBlockhash;
    };
    const { e } = engine(rpc);
    const req = request();
    const out = await e.land(req);
    expect(out.kind).toBe("landed");
    expect(out.attempts.map((a) => a.verdict)).toEqual(["expired", "landed"]);
    expect(out.attempts[0]!.blockhash).not.toBe(out.attempts[1]!.blockhash);
    expect(out.attempts[0]!.signature).not.toBe(out.attempts[1]!.signature);
    expect(rpc.simulations).toHaveLength(2); // re-simulated before the second attempt
    expect(rpc.landings).toBe(1);
    expect(req.seen.map((a) => `${a.n}:${a.verdict}`)).toEqual(["1:pending", "1:expired", "2:pending", "2:landed"]);
  });

  it("gives up after maxAttempts expiries", async () => {
    const rpc = new FakeRpc();
    rpc.blockhashLife = 3;
    rpc.onSend = () => false;
    const { e } = engine(rpc, { maxAttempts: 3 });
    const out = await e.land(request());
    expect(out.kind).toBe("expired");
    expect(out.attempts.map((a) => a.verdict)).toEqual(["expired", "expired", "expired"]);
    expect(rpc.blockhashCount).toBe(3);
    expect(rpc.landings).toBe(0);
  });

  it("reports the landed transaction's wire size, and refuses one above the 1232-byte packet before any RPC call", async () => {
    const rpc = new FakeRpc();
    const { e } = engine(rpc);
    const out = await e.land(request());
    expect(out.kind === "landed" && out.sizeBytes).toBe(rpc.sends[0]!.tx.serialize().length);
    const big = (n: number) =>
      request({
        instructions: [
          new TransactionInstruction({
            programId: new PublicKey(PROGRAM),
            keys: [{ pubkey: WRITABLE, isSigner: false, isWritable: true }],
            data: Buffer.alloc(n),
          }),
        ],
      });
    const fits = (await e.land(big(900))) as { kind: string; sizeBytes?: number };
    expect(fits.kind).toBe("landed");
    const over = 1232 - fits.sizeBytes! + 900 + 1;
    const calls = rpc.calls.length;
    expect(await e.land(big(over))).toMatchObject({ kind: "too-large", detail: expect.stringContaining("1233 bytes, more than a packet's 1232") });
    expect(rpc.calls.length).toBe(calls);
    expect(await e.land(big(over - 1))).toMatchObject({ kind: "landed", sizeBytes: 1232 });
  });

  it("refuses on a failed simulation without sending anything", async () => {
    const rpc = new FakeRpc();
    rpc.simulation = { err: { InstructionError: [2, { Custom: 6002 }] }, logs: ["Program log: Error: NullifierSpent"], unitsConsumed: 0 };
    const { e } = engine(rpc);
    const req = request();
    const out = await e.land(req);
    expect(out).toMatchObject({ kind: "refused", stage: "simulation", err: { InstructionError: [2, { Custom: 6002 }] }, signature: null });
    if (out.kind === "refused") expect(out.programIds[2]).toBe(PROGRAM);
    expect(rpc.sends).toHaveLength(0);
    expect(req.seen).toHaveLength(0);
  });

  it("reports a transaction that failed on chain with its error", async () => {
    const rpc = new FakeRpc();
    rpc.onSend = () => ({ err: { InstructionError: [2, { Custom: 6002 }] } });
    const { e } = engine(rpc);
    const req = request();
    const out = await e.land(req);
    expect(out).toMatchObject({
      kind: "refused",
      stage: "chain",
      err: { InstructionError: [2, { Custom: 6002 }] },
      logs: ["Program log: Error: NullifierSpent"],
    });
    expect(req.seen.map((a) => a.verdict)).toEqual(["pending", "failed"]);
  });

  it("sets the compute-unit limit from the simulation and the price from the percentile, capped by the config", async () => {
    const rpc = new FakeRpc();
    rpc.simulation = { err: null, logs: [], unitsConsumed: 100_000 };
    rpc.prioritizationFees = [0, 10, 20, 1000, 30];
    const { e, lines } = engine(rpc, { priorityFeePercentile: 75, maxPriorityMicroLamports: 20 });
    const out = await e.land(request());
    expect(out.kind).toBe("landed");
    expect(budget(rpc.sends[0]!.tx)).toEqual({ limit: 120_300, price: 20 });
    expect(out.attempts[0]).toMatchObject({ computeUnitLimit: 120_300, computeUnitPriceMicroLamports: 20 });
    // The simulation ran with the maximum limit; the fees were asked for the writable accounts.
    expect(budget(rpc.simulations[0]!).limit).toBe(1_400_000);
    expect(rpc.prioritizationAccounts[0]).toEqual([signer.address, WRITABLE.toBase58()]);
    expect(lines.some((l) => l.includes("capped to 20 by the config"))).toBe(true);
  });

  it("caps the compute-unit price by what the relay fee covers", async () => {
    const rpc = new FakeRpc();
    rpc.simulation = { err: null, logs: [], unitsConsumed: 100_000 };
    rpc.prioritizationFees = [1000];
    const { e } = engine(rpc);
    // Worth 5000 + rent + 6 lamports: 6 lamports of priority at 120 300 units → 49 µlamports per unit.
    const out = await e.land(request({ feeBudget: { mint: WRAPPED_SOL_MINT, fee: BigInt(5000 + RENT_81 + 6) } }));
    expect(out.kind).toBe("landed");
    expect(budget(rpc.sends[0]!.tx)).toEqual({ limit: 120_300, price: 49 });
    if (out.kind === "landed") expect(out.networkFeeLamports + out.rentLamports).toBeLessThanOrEqual(5000 + RENT_81 + 6);
  });

  it("refuses as unprofitable before sending when even the zero-priority cost exceeds the fee, unless a loss is allowed", async () => {
    const rpc = new FakeRpc();
    const { e } = engine(rpc);
    const out = await e.land(request({ feeBudget: { mint: WRAPPED_SOL_MINT, fee: BigInt(5000 + RENT_81 - 1) } }));
    expect(out.kind).toBe("unprofitable");
    const noPrice = await e.land(request({ feeBudget: { mint: USDC, fee: 1_000_000_000n } }));
    expect(noPrice).toMatchObject({ kind: "unprofitable", detail: expect.stringContaining("lamportsPerUnit") });
    expect(rpc.sends).toHaveLength(0);

    const loss = engine(rpc, { allowLoss: true }).e;
    expect((await loss.land(request({ feeBudget: { mint: USDC, fee: 1n } }))).kind).toBe("landed");
    // A priced mint: 1 base unit of USDC = 0.5 lamports here.
    const priced = engine(rpc, { lamportsPerUnit: { [USDC]: "0.5" } }).e;
    expect((await priced.land(request({ feeBudget: { mint: USDC, fee: BigInt(2 * (5000 + RENT_81)) } }))).kind).toBe("landed");
    expect((await priced.land(request({ feeBudget: { mint: USDC, fee: BigInt(2 * (5000 + RENT_81) - 2) } }))).kind).toBe("unprofitable");
  });

  it("asks the rent once per account size", async () => {
    const rpc = new FakeRpc();
    const { e } = engine(rpc);
    await e.land(request({ createdAccountSizes: [81, 165] }));
    await e.land(request({ createdAccountSizes: [81, 165] }));
    expect(rpc.calls.filter((c) => c === "getMinimumBalanceForRentExemption")).toHaveLength(2);
  });

  it("answers unknown, never 'did not land', when the RPC goes away with a transaction in flight", async () => {
    const rpc = new FakeRpc();
    rpc.onSend = () => {
      rpc.down = "fetch failed";
      return false;
    };
    const { e, lines } = engine(rpc, {}, { unknownAfterMs: 150 });
    const req = request();
    const out = await e.land(req);
    expect(out.kind).toBe("unknown");
    if (out.kind === "unknown") expect(out.signature).toBe(rpc.sends[0]!.signature);
    expect(req.seen.map((a) => a.verdict)).toEqual(["pending", "unknown"]);
    expect(lines.some((l) => l.includes("may still land"))).toBe(true);
  });

  it("rides out a short outage and still reaches the verdict", async () => {
    const rpc = new FakeRpc();
    rpc.onSend = (s) => s.count >= 3;
    rpc.failures.set("getSignatureStatuses", 3);
    rpc.failures.set("getBlockHeight", 2);
    const { e } = engine(rpc);
    const out = await e.land(request());
    expect(out.kind).toBe("landed");
    expect(rpc.landings).toBe(1);
  });

  it("fails without sending when the RPC is unreachable before anything is signed", async () => {
    const rpc = new FakeRpc();
    rpc.down = "connect ECONNREFUSED";
    const { e } = engine(rpc);
    const req = request();
    const out = await e.land(req);
    expect(out).toMatchObject({ kind: "not-sent", detail: expect.stringContaining("ECONNREFUSED") });
    expect(req.seen).toHaveLength(0);
  });

  it("does not send an attempt it could not record", async () => {
    const rpc = new FakeRpc();
    const { e } = engine(rpc);
    const out = await e.land(request({ observer: { attempt: async () => Promise.reject(new Error("disk full")) } }));
    expect(out).toMatchObject({ kind: "not-sent", detail: expect.stringContaining("disk full") });
    expect(rpc.sends).toHaveLength(0);
  });

  it("does not send an attempt the relay refused (its record already has a verdict)", async () => {
    const rpc = new FakeRpc();
    const { e } = engine(rpc);
    const out = await e.land(request({ observer: { attempt: async () => false } }));
    expect(out).toMatchObject({ kind: "not-sent", detail: expect.stringContaining("already has a verdict") });
    expect(rpc.sends).toHaveLength(0);
  });
});
