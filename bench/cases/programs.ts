/**
 * The SBF programs' compute units and transaction sizes against their budgets
 * (docs/pool-program.md: Compute units and transaction sizes),
 * measured in LiteSVM (the real runtime) with the committed .so files: the
 * pool program's deposit over many random precommitments, withdraw (protocol
 * v3: seven public inputs and the change leaf's insertion) with the
 * recipient's token account existing and created by the program, and
 * withdraw_swap with its escrow and assert_swap_out around the cp-swap venue,
 * with the recipient's output account created by the program and as the relay
 * sends it (output account created idempotently first, the route's lookup
 * table, which cannot hold the per-withdrawal escrow). Peers in the same run:
 * the Groth16 verifier alone (programs/groth16-harness), so the withdrawal's
 * own overhead shows; and the budget each figure must stay under (DESIGN §10).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ComputeBudgetProgram, Keypair, PublicKey, TransactionInstruction } from "@solana/web3.js";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  ROOT_HISTORY_SIZE,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  assertSwapOutInstruction,
  swapEscrowAddress,
  withdrawInstruction,
  withdrawSwapInstruction,
} from "../../src-shared/pool-program";
import { CP_SWAP_PROGRAM_ID, cpSwapInstruction, type CpPoolInfo } from "../../src-localnet/programs/cp-swap-client";
import {
  ata,
  FEE,
  fixturePool,
  MINT,
  OUTPUT_MINT,
  PLAIN,
  PLAIN_5,
  PLAIN_6,
  PoolWorld,
  PROGRAM,
  SOL,
  SWAP,
  type FixturePool,
  type Landed,
} from "../../programs/pool/test-support";
import { loadFixtures } from "../../tests/support/groth16/fixtures";
import { Svm } from "../../tests/support/svm";
import { ROOT } from "../lib/data";
import type { CaseResult, Metric } from "../lib/metric";
import { fmtNum, percentile } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";

const BUDGET = { deposit: 40_000, withdraw: 160_000, withdrawCreating: 185_000, swap: 215_000, packet: 1_232 };

function poolUnits(r: Landed): number {
  if (!r.ok) throw new Error(`transaction failed: ${r.error}\n${r.logs.join("\n")}`);
  return r.units.filter((u) => u.program === PROGRAM).reduce((s, u) => s + u.consumed, 0);
}

/** The verifier alone, in the same SVM build: one real proof through programs/groth16-harness. */
function verifierUnits(): number {
  const svm = new Svm();
  const id = svm.addProgram(readFileSync(path.join(ROOT, "programs/groth16-harness/groth16-harness.so")));
  const payer = svm.fundedKeypair();
  const c = loadFixtures()[0]!;
  const data = new Uint8Array(256 + c.signals.length * 32);
  data.set(c.proof, 0);
  c.signals.forEach((s, i) => data.set(s, 256 + 32 * i));
  const r = svm.send([{ programId: id, keys: [], data: Buffer.from(data) } as TransactionInstruction], [payer]);
  if (!r.ok) throw new Error(`the harness refused a valid proof: ${r.error}`);
  const line = r.logs.map((l) => new RegExp(`^Program ${id.toBase58()} consumed (\\d+) of`).exec(l)).find(Boolean);
  return Number(line![1]);
}

/** withdraw_swap, the venue paying the escrow, assert_swap_out. */
function swapInstructions(f: FixturePool): TransactionInstruction[] {
  const recipient = f.recipient(SWAP);
  const nullifierHash = f.cases.get(SWAP)!.signals[1]!;
  return [
    withdrawSwapInstruction({ ...f.params(SWAP), outputMint: OUTPUT_MINT, minOut: f.minOut(SWAP) }),
    cpSwapInstruction({
      user: f.relayer.publicKey.toBase58(),
      inputMint: MINT,
      outputMint: OUTPUT_MINT,
      amountIn: f.amount(SWAP) - FEE,
      minAmountOut: 0n,
      destination: swapEscrowAddress(PROGRAM, MINT, nullifierHash),
    }),
    assertSwapOutInstruction({
      programId: PROGRAM,
      relayer: f.relayer.publicKey.toBase58(),
      mint: MINT,
      recipient,
      outputMint: OUTPUT_MINT,
      minOut: f.minOut(SWAP),
      nullifierHash,
    }),
  ];
}

/** The program creates the recipient's output account: simulated with every account in a table (units only). */
function swapCreating(f: FixturePool): Landed {
  const ixs = swapInstructions(f);
  const keys = new Set<string>();
  for (const ix of ixs) for (const k of ix.keys) keys.add(k.pubkey.toBase58());
  keys.delete(f.relayer.publicKey.toBase58());
  return f.world.simulate(ixs, [f.relayer], [f.world.lookupTable([...keys])]);
}

/**
 * As the relay sends it: unit price, the recipient's output account created idempotently,
 * then withdraw_swap, the venue, assert_swap_out; v0 with the route's table only (the pool,
 * its vaults, the mints, the programs). The escrow, the nullifier and the recipient's
 * accounts differ per withdrawal, so they stay in the message.
 */
function swapAsRelayed(f: FixturePool, cp: CpPoolInfo): Landed {
  const createOut = new TransactionInstruction({
    programId: new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: f.relayer.publicKey, isSigner: true, isWritable: true },
      { pubkey: new PublicKey(ata(f.recipient(SWAP), OUTPUT_MINT)), isSigner: false, isWritable: true },
      { pubkey: new PublicKey(f.recipient(SWAP)), isSigner: false, isWritable: false },
      { pubkey: f.outputMint, isSigner: false, isWritable: false },
      { pubkey: new PublicKey(SYSTEM_PROGRAM_ID), isSigner: false, isWritable: false },
      { pubkey: new PublicKey(TOKEN_PROGRAM_ID), isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]),
  });
  const table = f.world.lookupTable([cp.pool, cp.vaultA, cp.vaultB, cp.mintA, cp.mintB, TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID]);
  return f.world.send([ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }), createOut, ...swapInstructions(f)], [f.relayer], [table]);
}

function budgetMetric(name: string, ours: number, budget: number, detail?: string): Metric {
  return {
    name,
    ours,
    unit: "CU",
    peerLabel: "budget",
    peer: budget,
    better: "lower",
    target: { kind: "<", value: budget + 1 },
    ...(detail ? { detail } : {}),
  };
}

/** The withdrawals with the recorded proofs: plain (the recipient's account exists or is created) and swaps. */
function measureWithdrawals(f: FixturePool) {
  f.world.svm.createTokenAccount(f.world.mint, new PublicKey(f.recipient(PLAIN_5)), 0n);
  const existing = f.world.send([withdrawInstruction(f.params(PLAIN_5))], [f.relayer]);
  const creating = f.world.send([withdrawInstruction(f.params(PLAIN_6))], [f.relayer]);
  const cp = f.world.cpPool(f.outputMint, 1_000n * SOL, 1_000_000_000_000n);
  const swapCreated = swapCreating(f);
  const swap = swapAsRelayed(f, cp);
  const swapPool = swap.units.filter((u) => u.program === PROGRAM).map((u) => u.consumed);
  const swapCreatedPool = swapCreated.units.filter((u) => u.program === PROGRAM).map((u) => u.consumed);
  const venue = swap.units.filter((u) => u.program === CP_SWAP_PROGRAM_ID).reduce((s, u) => s + u.consumed, 0);
  return { existing, creating, swap, swapCreated, swapPool, swapCreatedPool, venue };
}

/**
 * Deposits of random precommitments, and the PLAIN withdrawal sent once the fixture root is the
 * ring's oldest. The fixture root is 3 insertions old here (PLAIN_5, PLAIN_6, SWAP); with `quick`
 * the ring is not walked through.
 */
function measureDeposits(f: FixturePool, deposits: number): { units: number[]; plain: Landed } {
  const depositor = f.world.depositor(BigInt(deposits) * 1_000n);
  const units: number[] = [];
  const oldestAt = ROOT_HISTORY_SIZE - 1 - 3;
  let plain: Landed | undefined;
  for (let i = 0; i < deposits; i++) {
    if (i === Math.min(oldestAt, deposits - 1)) plain = f.world.send([withdrawInstruction(f.params(PLAIN))], [f.relayer]);
    const pre = Keypair.generate().publicKey.toBytes();
    pre[0] = 0; // below the field modulus
    units.push(poolUnits(f.world.deposit(depositor, pre, 1_000n, 1_000n + BigInt(i))));
  }
  if (!plain) throw new Error("no plain withdrawal");
  return { units, plain };
}

/** A fresh pool's initialize transaction (initialize_pool + 3 extend_pool) and its tree's rent. */
async function freshPool(f: FixturePool) {
  const fresh = await PoolWorld.create({ hasher: f.world.hasher });
  const init = fresh.initialize();
  if (!init.ok) throw new Error(`initialize_pool: ${init.logs.join("\n")}`);
  const treeRent = fresh.svm.getAccount(fresh.tree)!.lamports;
  return { init, treeRent, fresh };
}

function report(
  quick: boolean,
  deposits: number,
  verifier: number,
  w: ReturnType<typeof measureWithdrawals>,
  { units, plain }: { units: number[]; plain: Landed },
  { init, treeRent, fresh }: Awaited<ReturnType<typeof freshPool>>,
): CaseResult {
  const { existing, creating, swap, swapCreated, swapPool, swapCreatedPool, venue } = w;
  const metrics: Metric[] = [
    budgetMetric(
      "deposit p99",
      percentile(units, 99),
      BUDGET.deposit,
      `p50 ${fmtNum(percentile(units, 50))}, max ${fmtNum(Math.max(...units))} over ${deposits} deposits`,
    ),
    budgetMetric("deposit max", Math.max(...units), BUDGET.deposit, `over ${deposits} deposits (each emits its event by a self-CPI)`),
    budgetMetric("withdraw, recipient's token account exists", poolUnits(existing), BUDGET.withdraw),
    budgetMetric("withdraw, the program creates the recipient's token account", poolUnits(creating), BUDGET.withdrawCreating),
    budgetMetric(
      "withdraw_swap + assert_swap_out with the escrow, recipient's output account exists (the venue's units apart)",
      poolUnits(swap),
      BUDGET.swap,
      `withdraw_swap ${fmtNum(swapPool[0] ?? 0)} + assert ${fmtNum(swapPool[1] ?? 0)}; cp-swap venue ${fmtNum(venue)}`,
    ),
    budgetMetric(
      "withdraw_swap + assert_swap_out with the escrow, the program creates the recipient's output account",
      poolUnits(swapCreated),
      BUDGET.swap,
      `withdraw_swap ${fmtNum(swapCreatedPool[0] ?? 0)} + assert ${fmtNum(swapCreatedPool[1] ?? 0)}`,
    ),
    {
      name: "withdraw's own work beside proof verification",
      ours: poolUnits(existing),
      unit: "CU",
      peerLabel: "the Groth16 verifier alone (groth16-harness)",
      peer: verifier,
      better: "lower",
      target: null,
    },
    budgetMetric(
      quick
        ? "withdraw, the program creates the recipient's token account (quick: a fresh root)"
        : "withdraw against the ring's oldest root (999 insertions old), the program creates the recipient's token account",
      poolUnits(plain),
      BUDGET.withdrawCreating,
    ),
    {
      name: "initialize_pool + 3 extend_pool transaction size (a usable pool in one transaction)",
      ours: init.size,
      unit: "bytes",
      peerLabel: "packet limit",
      peer: BUDGET.packet,
      better: "lower",
      target: { kind: "<", value: BUDGET.packet + 1 },
    },
    {
      name: "tree account rent (33,192 bytes, rent-exempt minimum)",
      ours: Number(treeRent),
      unit: "lamports",
      peerLabel: "the 100-root tree of protocol v3 (4,353 bytes)",
      peer: Number(fresh.svm.rentExempt(4353)),
      better: "lower",
      target: null,
    },
    {
      name: "withdraw transaction size",
      ours: plain.size,
      unit: "bytes",
      peerLabel: "packet limit",
      peer: BUDGET.packet,
      better: "lower",
      target: { kind: "<", value: BUDGET.packet + 1 },
    },
    {
      name: "withdraw_swap transaction size as the relay sends it (route table; the escrow, nullifier and recipient accounts in the message)",
      ours: swap.size,
      unit: "bytes",
      peerLabel: "packet limit",
      peer: BUDGET.packet,
      better: "lower",
      target: { kind: "<", value: BUDGET.packet + 1 },
    },
  ];
  return {
    metrics,
    notes: [
      "LiteSVM ships the low-cost SPL Token program (a transfer costs under 100 CU); the classic SPL Token program costs about 4.6k a transfer, which adds about 4.5k to a deposit on such a cluster",
      "units are the pool program's own (its top-level instructions), from the runtime's `consumed` log lines",
    ],
  };
}

const programs: BenchCase = {
  name: "programs",
  title: "SBF programs in LiteSVM: compute units and transaction sizes",
  async run({ quick, log }) {
    const deposits = quick ? 100 : 1_000;
    log("deploying pool.so and cp-swap.so in LiteSVM; the seven fixture deposits");
    const f = await fixturePool();
    const verifier = verifierUnits();

    // Withdrawals first: the recorded proofs are against the fixture root, which 1,000 more insertions push out of the
    // ring. PLAIN waits until that root is the ring's oldest (999 insertions old): the longest root scan.
    log("withdrawals with the recorded proofs");
    const withdrawals = measureWithdrawals(f);
    log(`${deposits} deposits of random precommitments`);
    const depositRun = measureDeposits(f, deposits);
    return report(quick, deposits, verifier, withdrawals, depositRun, await freshPool(f));
  },
};

export default programs;
