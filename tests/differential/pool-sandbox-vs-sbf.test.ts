/**
 * The embedded sandbox chain (TypeScript, in the relay's own store) and the
 * pool program as a real SBF program (programs/pool/pool.so in LiteSVM, with
 * the real SPL Token program and programs/cp-swap/cp-swap.so as the venue) run
 * the same sequence of deposits, withdrawals, swaps and reverts, including the
 * failing ones, and must agree step by step: the tree's root, the vault's and
 * every party's balances, which nullifiers are spent, and the error a relay
 * would report (both chains' refusals mapped to the relay's error names).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxChain } from "../../src-server/adapters/chain-sandbox/sandbox-chain";
import { Signer } from "../../src-server/adapters/keys/keypair-file";
import { DurableDb } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";
import { Groth16MclVerifier } from "../../src-server/adapters/verifier-groth16/groth16-mcl";
import { FIXTURE_CASES, FIXTURE_FEE, FIXTURE_NOTE, FIXTURE_RELAYER_SEED, VKEY_PATH } from "../support/groth16/fixtures";
import type { SwapQuote } from "../../src-server/core/swap/quote";
import type { SubmitResult, WithdrawalSubmission } from "../../src-server/ports/chain";
import { signEd25519 } from "../../src-shared/crypto/ed25519";
import { computePrecommitment } from "../../src-shared/crypto/protocol";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { toHex } from "../../src-shared/encoding/bytes";
import { bigIntToBytes32 } from "../../src-shared/encoding/field";
import { sandboxDepositMessage } from "../../src-shared/messages";
import {
  POOL_ERRORS,
  assertSwapOutInstruction,
  depositReceiptAddress,
  poolNullifierAddress,
  publicKeyBytes,
  revertInstruction,
  revertNullifierOfReceipt,
  withdrawInstruction,
  withdrawSwapInstruction,
  type PoolErrorName,
} from "../../src-shared/pool-program";
import { vaultAddress } from "../../src-shared/solana/pda";
import { cpSwapInstruction } from "../../src-localnet/programs/cp-swap-client";
import { ata, fixturePool, MINT, OUTPUT_MINT, PROGRAM, SOL, type FixturePool, type Landed } from "../../programs/pool/test-support";

/** What a relay reports for each refusal (docs/pool-program.md "Program errors"; ChainRejection for the sandbox). */
const RELAY_NAME: Partial<Record<PoolErrorName, string>> = {
  InvalidProof: "InvalidProof",
  UnknownRoot: "InvalidRoot",
  NullifierSpent: "NullifierAlreadySpent",
  SwapOutputTooLow: "SlippageExceeded",
  NotRevertable: "AlreadyIndexed",
};
const POOL_ERROR_BY_CODE = new Map<number, PoolErrorName>(Object.entries(POOL_ERRORS).map(([name, code]) => [code, name as PoolErrorName]));

function sbfOutcome(r: Landed): string {
  if (r.ok) return "ok";
  const custom = r.custom;
  const name = custom === undefined ? undefined : POOL_ERROR_BY_CODE.get(custom);
  if (!name) return `RelayFailed (${r.error})`;
  return RELAY_NAME[name] ?? "RelayFailed";
}
function sandboxOutcome(r: SubmitResult): string {
  if (r.ok) return "ok";
  return r.rejection === "Failed" ? "RelayFailed" : r.rejection;
}

const SWAP_RESERVES = { in: 1_000n * SOL, out: 1_000_000_000_000n };

let sbf: FixturePool;
let dir: string;
let db: DurableDb;
let mcl: Groth16MclVerifier;
let sandbox: SandboxChain;
const relayer = new Signer(nacl.sign.keyPair.fromSeed(FIXTURE_RELAYER_SEED).secretKey);
const sandboxProgram = publicKeyBytes(PROGRAM);
const sandboxVault = vaultAddress(sandboxProgram, publicKeyBytes(MINT));
const depositor = nacl.sign.keyPair();
const depositorAddress = encodeBase58(depositor.publicKey);
const deposits = new Map<string, { sandboxSignature: string; nonce: bigint }>();
let nonce = 7n;

const spec = (label: string) => FIXTURE_CASES.find((c) => c.label === label)!;
const recipientOf = (label: string) => encodeBase58(spec(label).recipient);

function submission(label: string, over: { fee?: bigint } = {}): WithdrawalSubmission {
  const c = sbf.cases.get(label)!;
  const s = spec(label);
  return {
    mint: MINT,
    mintBytes: publicKeyBytes(MINT),
    recipient: recipientOf(label),
    root: c.signals[0]!,
    nullifierHash: c.signals[1]!,
    proof: c.proof,
    depositSize: FIXTURE_NOTE(s.index).amount,
    fee: over.fee ?? FIXTURE_FEE,
    ...(s.swap ? { swap: { outputMint: OUTPUT_MINT, minOut: s.swap.minOut, quote: {} as SwapQuote } } : {}),
  };
}

/** The same withdrawal as the relay's Solana adapter would send it: withdraw, or withdraw_swap + the venue + assert_swap_out. */
function sbfWithdraw(label: string, over: { fee?: bigint } = {}): Landed {
  const s = spec(label);
  const fee = over.fee ?? FIXTURE_FEE;
  if (!s.swap) return sbf.world.send([withdrawInstruction(sbf.params(label, { fee }))], [sbf.relayer]);
  const recipient = recipientOf(label);
  const out = ata(recipient, OUTPUT_MINT);
  const ixs: TransactionInstruction[] = [
    withdrawSwapInstruction({ ...sbf.params(label, { fee }), outputMint: OUTPUT_MINT, minOut: s.swap.minOut }),
    cpSwapInstruction({
      user: sbf.relayer.publicKey.toBase58(),
      inputMint: MINT,
      outputMint: OUTPUT_MINT,
      amountIn: FIXTURE_NOTE(s.index).amount - fee,
      minAmountOut: 0n,
      destination: out,
    }),
    assertSwapOutInstruction({ programId: PROGRAM, recipient, outputMint: OUTPUT_MINT, requiredBalance: sbfBalance(out) + s.swap.minOut }),
  ];
  const keys = new Set<string>();
  for (const ix of ixs) for (const k of ix.keys) keys.add(k.pubkey.toBase58());
  keys.delete(sbf.relayer.publicKey.toBase58());
  return sbf.world.send(ixs, [sbf.relayer], [sbf.world.lookupTable([...keys])]);
}

const sbfBalance = (tokenAccount: string): bigint => (sbf.world.exists(tokenAccount) ? sbf.world.balance(tokenAccount) : 0n);
const sbfRoot = (): string => {
  const t = sbf.world.treeAccount();
  return toHex(t.roots[t.currentRootIndex]!);
};
const sandboxRoot = async (): Promise<string> => toHex((await sandbox.treeAccount(MINT))!.root);

/** Both chains' view of what a step changed; equal after every step. */
async function state(labels: string[]): Promise<Record<string, unknown>> {
  const spent: Record<string, [boolean, boolean]> = {};
  for (const l of labels) {
    const nh = sbf.cases.get(l)!.signals[1]!;
    spent[l] = [await sandbox.isNullifierSpent(MINT, nh), sbf.world.exists(poolNullifierAddress(PROGRAM, MINT, nh))];
  }
  const people = [...new Set(labels.map(recipientOf))];
  return {
    root: [await sandboxRoot(), sbfRoot()],
    vault: [sandbox.balance(sandboxVault, MINT), sbf.world.vaultBalance()],
    relayerFees: [sandbox.balance(relayer.address, MINT), sbfBalance(ata(relayer.address, MINT))],
    recipients: people.map((p) => [
      [sandbox.balance(p, MINT), sbfBalance(ata(p, MINT))],
      [sandbox.balance(p, OUTPUT_MINT), sbfBalance(ata(p, OUTPUT_MINT))],
    ]),
    spent,
  };
}
/** Each pair holds the sandbox's value then the SBF program's: they must be equal. */
function expectAgreement(s: Record<string, unknown>): void {
  const walk = (v: unknown, where: string): void => {
    if (Array.isArray(v) && v.length === 2 && !Array.isArray(v[0])) expect(v[0], where).toEqual(v[1]);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
  };
  walk(s, "state");
}

async function depositBoth(label: string, precommitment: Uint8Array, amount: bigint): Promise<{ sandbox: string; sbf: string }> {
  const sb = await sandbox.deposit({
    mint: MINT,
    mintBytes: publicKeyBytes(MINT),
    amount,
    precommitment,
    wallet: depositorAddress,
    walletBytes: depositor.publicKey,
    signature: signEd25519(sandboxDepositMessage("mainnet", MINT, amount, precommitment), depositor.secretKey),
  });
  if (!sb.ok) throw new Error(`sandbox deposit ${label}: ${sb.error}`);
  const n = nonce++;
  const r = sbf.world.deposit(sbf.depositor, precommitment, amount, n);
  if (!r.ok) throw new Error(`sbf deposit ${label}: ${r.logs.join("\n")}`);
  deposits.set(label, { sandboxSignature: sb.value.signature, nonce: n });
  const receipt = sbf.world.receipt(depositReceiptAddress(PROGRAM, MINT, sbf.depositor.publicKey.toBase58(), n));
  return { sandbox: sb.value.status, sbf: receipt.status };
}

const LABELS = FIXTURE_CASES.map((c) => c.label);

beforeAll(async () => {
  sbf = await fixturePool();
  dir = mkdtempSync(path.join(tmpdir(), "differential-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
  mcl = await Groth16MclVerifier.fromFile(VKEY_PATH);
  sandbox = new SandboxChain("mainnet", db, sbf.world.hasher, relayer, sandboxProgram, { verify: async (p, s) => mcl.verify(p, s), close: async () => {} });
  // The same seven fixture notes, in the same order, on both chains.
  await sandbox.airdrop(depositorAddress, MINT, 1_000n * SOL);
  for (let i = 0; i < 7; i++) {
    const n = FIXTURE_NOTE(i);
    const pre = computePrecommitment(sbf.world.hasher, bigIntToBytes32(n.nullifier), bigIntToBytes32(n.secret));
    const r = await sandbox.deposit({
      mint: MINT,
      mintBytes: publicKeyBytes(MINT),
      amount: n.amount,
      precommitment: pre,
      wallet: depositorAddress,
      walletBytes: depositor.publicKey,
      signature: signEd25519(sandboxDepositMessage("mainnet", MINT, n.amount, pre), depositor.secretKey),
    });
    if (!r.ok || r.value.leafIndex !== i) throw new Error(`sandbox fixture deposit ${i}`);
  }
  // The same venue on both: a constant-product pool of (MINT, OUTPUT_MINT) with the same reserves.
  await sandbox.swapPools.set(MINT, OUTPUT_MINT, SWAP_RESERVES.in, SWAP_RESERVES.out, Date.now());
  sbf.world.cpPool(sbf.outputMint, SWAP_RESERVES.in, SWAP_RESERVES.out);
}, 120_000);
afterAll(async () => {
  mcl?.close();
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the sandbox chain and the SBF pool program agree, step by step", () => {
  it("start from the same tree after the seven fixture deposits", async () => {
    expectAgreement(await state(LABELS));
  });

  it("deposits: a 7-unit deposit is indexed with the same leaf; zero and duplicate precommitments fail on both with the funds in the vault", async () => {
    const fresh = computePrecommitment(sbf.world.hasher, bigIntToBytes32(123n), bigIntToBytes32(456n));
    expect(await depositBoth("seven", fresh, 7n)).toEqual({ sandbox: "indexed", sbf: "indexed" });
    expect(await depositBoth("zero", new Uint8Array(32), 5n)).toEqual({ sandbox: "failed", sbf: "failed" });
    const n0 = FIXTURE_NOTE(0);
    const dup = computePrecommitment(sbf.world.hasher, bigIntToBytes32(n0.nullifier), bigIntToBytes32(n0.secret));
    expect(await depositBoth("duplicate", dup, n0.amount)).toEqual({ sandbox: "failed", sbf: "failed" });
    expectAgreement(await state(LABELS));
  });

  it.each<[string, string, { fee?: bigint }, string]>([
    ["a proof on its own terms", "leaf 0, 1 SOL", {}, "ok"],
    ["the same nullifier again", "leaf 0, 1 SOL", {}, "NullifierAlreadySpent"],
    ["a proof under another fee", "leaf 5, 6 SOL", { fee: FIXTURE_FEE + 1n }, "InvalidProof"],
    ["a fee above the amount", "leaf 5, 6 SOL", { fee: 6n * SOL + 1n }, "RelayFailed"],
    ["the proof then, on its own terms", "leaf 5, 6 SOL", {}, "ok"],
    ["a swap the venue cannot bring to minOut", "leaf 2, 3 SOL, swap unreachable", {}, "SlippageExceeded"],
    ["a swap to at least minOut", "leaf 1, 2 SOL, swap min 1", {}, "ok"],
  ])("withdrawals: %s (%s, %o) gives %s on both", async (_name, label, over, expected) => {
    const sb = sandboxOutcome(await sandbox.submitWithdrawal(submission(label, over)));
    const so = sbfOutcome(sbfWithdraw(label, over));
    expect({ sandbox: sb, sbf: so }).toEqual({ sandbox: expected, sbf: expected });
    expectAgreement(await state(LABELS));
  });

  it("reverts: a failed deposit is paid back once on both; an indexed one is AlreadyIndexed on both", async () => {
    const hasher = sbf.world.hasher;
    const sbfRevert = (label: string): Landed => {
      const d = deposits.get(label)!;
      const receipt = depositReceiptAddress(PROGRAM, MINT, sbf.depositor.publicKey.toBase58(), d.nonce);
      const ix = revertInstruction({
        programId: PROGRAM,
        authority: sbf.relayer.publicKey.toBase58(),
        mint: MINT,
        depositor: sbf.depositor.publicKey.toBase58(),
        nonce: d.nonce,
        revertNullifier: revertNullifierOfReceipt(hasher, new PublicKey(receipt).toBytes()),
      });
      return sbf.world.send([ix], [sbf.relayer]);
    };
    const sandboxRevert = async (label: string): Promise<string> => {
      const r = await sandbox.revertDeposit({ depositSignature: deposits.get(label)!.sandboxSignature, depositor: depositorAddress });
      return r.ok ? "ok" : r.rejection;
    };
    const vaultBefore = [sandbox.balance(sandboxVault, MINT), sbf.world.vaultBalance()];
    expect({ sandbox: await sandboxRevert("zero"), sbf: sbfOutcome(sbfRevert("zero")) }).toEqual({ sandbox: "ok", sbf: "ok" });
    expect([sandbox.balance(sandboxVault, MINT), sbf.world.vaultBalance()]).toEqual(vaultBefore.map((v) => v - 5n));
    const again = sbfRevert("zero");
    expect({ sandbox: await sandboxRevert("zero"), sbf: again.ok ? "ok" : POOL_ERROR_BY_CODE.get(again.custom!) }).toEqual({
      sandbox: "NullifierSpent",
      sbf: "NullifierSpent",
    });
    expect({ sandbox: await sandboxRevert("seven"), sbf: sbfOutcome(sbfRevert("seven")) }).toEqual({ sandbox: "AlreadyIndexed", sbf: "AlreadyIndexed" });
    expectAgreement(await state(LABELS));
  });

  it("hold a new deposit's leaf at the same index and root after all of it", async () => {
    const pre = computePrecommitment(sbf.world.hasher, bigIntToBytes32(9n), bigIntToBytes32(10n));
    expect(await depositBoth("last", pre, 1_000n)).toEqual({ sandbox: "indexed", sbf: "indexed" });
    expect(sbf.world.treeAccount().nextIndex).toBe((await sandbox.treeAccount(MINT))!.nextIndex);
    expectAgreement(await state(LABELS));
  });
});
