/**
 * The embedded sandbox chain (TypeScript, in the relay's own store) and the
 * pool program as a real SBF program (programs/pool/pool.so in LiteSVM, with
 * the real SPL Token program and programs/cp-swap/cp-swap.so as the venue) run
 * the same sequence of deposits, withdrawals, swaps and reverts, including the
 * failing ones, and must agree step by step: the tree's root, the vault's and
 * every party's balances, which nullifiers are spent, and the error a relay
 * would report (both chains' refusals mapped to the relay's error names).
 * Protocol v3: every withdrawal inserts its change leaf on both, so the roots
 * agree only if both insert the same leaf at the same index; partial
 * withdrawals and chains of change notes are proved with the SDK.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxChain } from "../../src-server/adapters/chain-sandbox/sandbox-chain";
import { Signer } from "../../src-shared/node/keypair-file";
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
  depositCommitment,
  depositReceiptAddress,
  poolNullifierAddress,
  publicKeyBytes,
  revertInstruction,
  revertNullifierOfReceipt,
  swapEscrowAddress,
  withdrawInstruction,
  withdrawSwapInstruction,
  type PoolErrorName,
} from "../../src-shared/pool-program";
import { vaultAddress } from "../../src-shared/solana/pda";
import { cpSwapInstruction } from "../../src-localnet/programs/cp-swap-client";
import { ata, notePool, MINT, OUTPUT_MINT, PROGRAM, SOL, type Landed, type NotePool, type PlacedNote } from "../../programs/pool/test-support";
import { createNote } from "../../src-client/sdk/note";
import type { WithdrawalProof } from "../../src-client/sdk/prove";
import { seededRandom } from "../support/proofs";

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

let sbf: NotePool;
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
    changeCommitment: c.signals[6]!,
    fee: over.fee ?? FIXTURE_FEE,
    ...(s.swap ? { swap: { outputMint: OUTPUT_MINT, minOut: s.swap.minOut, quote: {} as SwapQuote } } : {}),
  };
}

/** After a withdrawal landed on both: its change leaf in the TypeScript mirror. */
function landedBoth(changeCommitment: Uint8Array): void {
  sbf.mirrors.get(MINT)!.append(changeCommitment);
}

/** The same withdrawal as the relay's Solana adapter would send it: withdraw, or withdraw_swap + the venue into the escrow + assert_swap_out. */
function sbfWithdraw(label: string, over: { fee?: bigint } = {}): Landed {
  const s = spec(label);
  const fee = over.fee ?? FIXTURE_FEE;
  const nullifierHash = sbf.cases.get(label)!.signals[1]!;
  if (!s.swap) return sbf.world.send([withdrawInstruction(sbf.params(label, { fee }))], [sbf.relayer]);
  const recipient = recipientOf(label);
  const ixs: TransactionInstruction[] = [
    withdrawSwapInstruction({ ...sbf.params(label, { fee }), outputMint: OUTPUT_MINT, minOut: s.swap.minOut }),
    cpSwapInstruction({
      user: sbf.relayer.publicKey.toBase58(),
      inputMint: MINT,
      outputMint: OUTPUT_MINT,
      amountIn: FIXTURE_NOTE(s.index).amount - fee,
      minAmountOut: 0n,
      destination: swapEscrowAddress(PROGRAM, MINT, nullifierHash),
    }),
    assertSwapOutInstruction({
      programId: PROGRAM,
      relayer: sbf.relayer.publicKey.toBase58(),
      mint: MINT,
      recipient,
      outputMint: OUTPUT_MINT,
      minOut: s.swap.minOut,
      nullifierHash,
    }),
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

/** Both chains' view of what a step changed; equal after every step. `more` adds nullifierHashes and recipients of non-fixture notes. */
async function state(labels: string[], more: { nullifierHashes?: Uint8Array[]; recipients?: string[] } = {}): Promise<Record<string, unknown>> {
  const spent: Record<string, [boolean, boolean]> = {};
  const nullifiers: [string, Uint8Array][] = [
    ...labels.map((l) => [l, sbf.cases.get(l)!.signals[1]!] as [string, Uint8Array]),
    ...(more.nullifierHashes ?? []).map((nh) => [toHex(nh), nh] as [string, Uint8Array]),
  ];
  for (const [name, nh] of nullifiers) {
    spent[name] = [await sandbox.isNullifierSpent(MINT, nh), sbf.world.exists(poolNullifierAddress(PROGRAM, MINT, nh))];
  }
  const people = [...new Set([...labels.map(recipientOf), ...(more.recipients ?? [])])];
  const mirrorRoot = toHex(sbf.mirrors.get(MINT)!.root());
  return {
    root: [await sandboxRoot(), sbfRoot()],
    mirroredRoot: [mirrorRoot, sbfRoot()],
    nextIndex: [(await sandbox.treeAccount(MINT))!.nextIndex, sbf.world.treeAccount().nextIndex],
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
  if (receipt.status === "indexed") sbf.mirrors.get(MINT)!.append(depositCommitment(sbf.world.hasher, precommitment, amount, MINT)!);
  return { sandbox: sb.value.status, sbf: receipt.status };
}

const LABELS = FIXTURE_CASES.map((c) => c.label);

beforeAll(async () => {
  sbf = await notePool();
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
    if (expected === "ok") landedBoth(sbf.cases.get(label)!.signals[6]!);
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

describe("protocol v3 on both chains: partial withdrawals, a chain of three pieces, whole withdrawals of deposit notes", () => {
  // Fixed recipients, so a re-run's witness inputs repeat and the proof cache answers.
  const recipientFor = (i: number) => encodeBase58(Uint8Array.from({ length: 32 }, (_, j) => (i * 37 + j * 11 + 1) & 0xff));
  const nullifiers: Uint8Array[] = [];
  const people: string[] = [];
  const proofs: WithdrawalProof[] = [];
  const agree = async () => expectAgreement(await state(LABELS, { nullifierHashes: nullifiers, recipients: people }));

  beforeAll(() => {
    // The fixture depositor's 40 SOL went into the fixture notes; the SBF side's depositor needs more (the sandbox's has 1,000).
    sbf.world.svm.createTokenAccount(sbf.world.mint, sbf.depositor.publicKey, 100n * SOL);
  });

  /** A deposit note with seeded secrets, deposited on both chains: indexed at the same leaf. */
  async function placeBoth(seed: string, value: bigint): Promise<PlacedNote> {
    const created = await createNote({ network: "mainnet", mint: MINT, amount: value, hasher: sbf.world.hasher, random: seededRandom(`differential ${seed}`) });
    if (!created.ok) throw new Error(created.error);
    expect(await depositBoth(seed, created.value.precommitment, value)).toEqual({ sandbox: "indexed", sbf: "indexed" });
    return { note: created.value, leafIndex: sbf.mirrors.get(MINT)!.nextIndex - 1 };
  }

  const submitBoth = async (p: WithdrawalProof, over: { depositSize?: bigint } = {}): Promise<{ sandbox: SubmitResult; sbf: Landed }> => {
    const sandboxResult = await sandbox.submitWithdrawal({
      mint: MINT,
      mintBytes: publicKeyBytes(MINT),
      recipient: p.recipient,
      root: p.root,
      nullifierHash: p.nullifierHash,
      proof: p.proof,
      depositSize: over.depositSize ?? p.amount,
      changeCommitment: p.changeCommitment,
      fee: p.fee,
    });
    const sbfResult = sbf.world.send(
      [withdrawInstruction(sbf.withdrawParams(p, over.depositSize === undefined ? {} : { amount: over.depositSize }))],
      [sbf.relayer],
    );
    return { sandbox: sandboxResult, sbf: sbfResult };
  };

  /** Withdraws `amount` of the note to recipient i on both; the same change leaf at the same index, the same root. */
  async function pieceBoth(placed: PlacedNote, i: number, amount: bigint): Promise<PlacedNote> {
    const recipient = recipientFor(i);
    const p = await sbf.prove(placed, recipient, { amount });
    const r = await submitBoth(p);
    expect({ sandbox: sandboxOutcome(r.sandbox), sbf: sbfOutcome(r.sbf) }).toEqual({ sandbox: "ok", sbf: "ok" });
    const event = r.sbf.events.find((e) => e.name === "WithdrawEvent");
    expect(event && event.name === "WithdrawEvent" && event.changeCommitment).toEqual(p.changeCommitment);
    const index = event && event.name === "WithdrawEvent" ? event.changeLeafIndex : -1;
    expect(r.sandbox.ok && r.sandbox.changeLeafIndex).toBe(index);
    const change = sbf.landed(p);
    expect(change.leafIndex).toBe(index);
    nullifiers.push(p.nullifierHash);
    people.push(recipient);
    proofs.push(p);
    await agree();
    return change;
  }

  it("a partial withdrawal of a deposit note (3 of 10 SOL), then of its change note (2 of the 7 left), then the rest (5 of 5): the same change leaves, indexes, roots and balances", async () => {
    const a = await placeBoth("chain", 10n * SOL);
    await agree();
    const first = await pieceBoth(a, 1, 3n * SOL);
    const second = await pieceBoth(first, 2, 2n * SOL);
    const last = await pieceBoth(second, 3, 5n * SOL);
    expect(last.note.amount).toBe(0n);
  }, 120_000);

  it("whole withdrawals of deposit notes made as in v2 (a note's value is its deposit's amount): a change leaf of 0 on both", async () => {
    const b = await placeBoth("whole", 2n * SOL);
    const c = await placeBoth("whole, after another deposit", 500_000_000n);
    const change = await pieceBoth(b, 4, 2n * SOL);
    expect(change.note.amount).toBe(0n);
    await pieceBoth(c, 5, 500_000_000n);
  }, 120_000);

  it("a piece spent again is NullifierAlreadySpent on both; amount 0 is refused on both before the proof; nothing moves", async () => {
    for (const p of proofs.slice(0, 2)) {
      const r = await submitBoth(p);
      expect({ sandbox: sandboxOutcome(r.sandbox), sbf: sbfOutcome(r.sbf) }).toEqual({ sandbox: "NullifierAlreadySpent", sbf: "NullifierAlreadySpent" });
    }
    const d = await placeBoth("amount zero", 1n * SOL);
    const p = await sbf.prove(d, recipientFor(6), { amount: 1n * SOL });
    const zero = await submitBoth(p, { depositSize: 0n });
    expect({ sandbox: sandboxOutcome(zero.sandbox), sbf: sbfOutcome(zero.sbf) }).toEqual({ sandbox: "RelayFailed", sbf: "RelayFailed" });
    expect(zero.sbf.custom).toBe(POOL_ERRORS.InvalidInput);
    await agree();
  }, 120_000);
});
