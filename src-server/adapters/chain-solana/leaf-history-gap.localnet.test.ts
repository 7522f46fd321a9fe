/**
 * Issue 25, finding 1, on the local validator: transactions that fill the
 * runtime's 10,000-byte log limit before the pool's own lines (46 zero-amount
 * SPL transfers then a deposit; many deposits in one v0 transaction) no longer
 * hide a leaf from the indexer, whose events are the program's self-CPIs. When
 * events are missing all the same (an RPC that gives no inner instructions),
 * the indexer rebuilds the leaves from the deposits' receipts, also after a
 * restart in the middle of such a gap, and never halts. After each, the
 * indexer's proof for the next deposit verifies against the on-chain root.
 * Real IndexerService on the sql.js store, real SolanaChain over JSON-RPC.
 */
import { randomBytes } from "node:crypto";
import {
  AddressLookupTableAccount,
  Keypair,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type VersionedTransactionResponse,
} from "@solana/web3.js";
import { Buffer } from "buffer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toHex } from "../../../src-shared/encoding/bytes";
import {
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  decodePoolEventLogs,
  depositCommitment,
  depositInstruction,
  poolTreeAddress,
} from "../../../src-shared/pool-program";
import { poolEventsOfResponse } from "../../../src-shared/pool-program/leaves";
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ID, encodeLookupTable } from "../../../src-localnet/programs/cp-swap-client";
import { rootFromPath } from "../../../src-client/sdk/tree";
import { IndexerService } from "../../services/indexer";
import { DurableDb } from "../storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../storage-sqljs/tree-store";
import type { LandedTransaction } from "./deposit-history";
import { createSolanaRpc, type SolanaRpc } from "./rpc";
import { SolanaChain } from "./solana-chain";
import { MINT, PROGRAM, TEST_TIMING, startFixturePool, type FixturePool } from "../../../tests/support/localnet-pool";
import { tempDirs } from "../../../tests/support/temp-dirs";

let pool: FixturePool;
const tempDir = tempDirs("leaf-gap-");
const TREE = poolTreeAddress(PROGRAM, MINT);

/** How the indexer's RPC is made worse than the validator: no inner instructions (old or stripped answers), receipts not readable yet. */
interface RpcFaults {
  noInnerInstructions: boolean;
  receiptsUnreadable: boolean;
}

/** The validator's RPC with `faults` applied to what the indexer reads (a test double of the port, over the real answers). */
function faultyRpc(faults: RpcFaults): SolanaRpc {
  const rpc = createSolanaRpc({ rpcUrl: pool.validator.rpcUrl, wsUrl: pool.validator.wsUrl, commitment: "confirmed", rpcTimeoutMs: 2_000 });
  const strip = (l: LandedTransaction | null): LandedTransaction | null =>
    l && l.tx && faults.noInnerInstructions ? { ...l, tx: { ...l.tx, innerInstructions: null } } : l;
  return new Proxy(rpc, {
    get(target, prop, receiver) {
      if (prop === "getLeafTransaction" && target.getLeafTransaction) {
        const read = target.getLeafTransaction.bind(target);
        return async (signature: string, commitment: "confirmed" | "finalized") => strip(await read(signature, commitment));
      }
      if (prop === "getTransaction") {
        return async (signature: string, config: { maxSupportedTransactionVersion: number; commitment?: "confirmed" | "finalized" }) => {
          const t = await target.getTransaction(signature, config);
          return t && t.meta && faults.noInnerInstructions ? { ...t, meta: { ...t.meta, innerInstructions: null } } : t;
        };
      }
      if (prop === "getAccountInfo") {
        return async (key: PublicKey, commitment?: "confirmed") =>
          faults.receiptsUnreadable && key.toBase58() !== TREE ? null : target.getAccountInfo(key, commitment);
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** An indexer over a fresh or given store, on its own connection; started (it catches up or keeps what it has). */
async function indexer(opts: { dir?: string; faults?: Partial<RpcFaults>; lines?: string[] } = {}) {
  const dir = opts.dir ?? tempDir();
  const faults: RpcFaults = { noInnerInstructions: false, receiptsUnreadable: false, ...opts.faults };
  const chain = new SolanaChain("devnet", pool.network(), faultyRpc(faults), pool.relayer, pool.hasher, () => {}, { timing: TEST_TIMING });
  const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
  const lines = opts.lines ?? [];
  const service = new IndexerService(
    new SqlTreeStore(db),
    new Map([["devnet", chain]]),
    pool.hasher,
    (_n, mint) => poolTreeAddress(PROGRAM, mint),
    (l) => lines.push(l),
  );
  await service.start();
  return { dir, db, chain, service, faults, lines, indexed: service.get("devnet", MINT)! };
}

/** A deposit instruction of a fresh precommitment (below the field modulus), and the leaf the program will compute. */
function freshDeposit(amount = 1_000n): { ix: TransactionInstruction; leaf: Uint8Array } {
  const precommitment = Uint8Array.from([0, ...randomBytes(31)]);
  const nonce = randomBytes(8).readBigUInt64LE();
  const depositor = pool.depositor.publicKey.toBase58();
  const ix = depositInstruction({ programId: PROGRAM, depositor, mint: MINT, precommitment, amount, nonce, hasher: pool.hasher });
  return { ix, leaf: depositCommitment(pool.hasher, precommitment, amount, MINT)! };
}

/** A frozen lookup table of every account the instructions name but the signer and the invoked programs. */
function tableFor(instructions: TransactionInstruction[], signer: Keypair): AddressLookupTableAccount {
  const skip = new Set([signer.publicKey.toBase58(), ...instructions.map((i) => i.programId.toBase58())]);
  const keys = [...new Set(instructions.flatMap((i) => i.keys.map((k) => k.pubkey.toBase58())))].filter((k) => !skip.has(k));
  const key = Keypair.generate().publicKey;
  const table = encodeLookupTable(keys);
  pool.validator.ledger.setAccount(key.toBase58(), {
    lamports: pool.validator.ledger.rentExempt(table.length),
    owner: ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
    data: table,
    executable: false,
  });
  return new AddressLookupTableAccount({ key, state: AddressLookupTableAccount.deserialize(table) });
}

/** Sends a v0 transaction of the depositor through a lookup table and reads it back once confirmed. */
async function landV0(instructions: TransactionInstruction[]): Promise<{ signature: string; tx: VersionedTransactionResponse }> {
  const signer = pool.depositor;
  const { blockhash } = await pool.rpc.getLatestBlockhash("confirmed");
  const message = new TransactionMessage({ payerKey: signer.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message([
    tableFor(instructions, signer),
  ]);
  const v0 = new VersionedTransaction(message);
  v0.sign([signer]);
  expect(v0.serialize().length).toBeLessThanOrEqual(1232);
  const signature = await pool.rpc.sendRawTransaction(v0.serialize());
  for (let i = 0; i < 400; i++) {
    const status = (await pool.rpc.getSignatureStatuses([signature])).value[0];
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") {
      const tx = await pool.rpc.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
      expect(tx?.meta?.err ?? null).toBeNull();
      return { signature, tx: tx! };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`transaction ${signature} did not land`);
}

/** A zero-amount SPL transfer from the depositor's token account to itself: ~210 bytes of logs for a few bytes of transaction. */
function zeroTransfer(): TransactionInstruction {
  const account = new PublicKey(associatedTokenAddress(pool.depositor.publicKey.toBase58(), MINT));
  return new TransactionInstruction({
    programId: new PublicKey(TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: account, isSigner: false, isWritable: true },
      { pubkey: account, isSigner: false, isWritable: true },
      { pubkey: pool.depositor.publicKey, isSigner: true, isWritable: false },
    ],
    data: Buffer.from([3, 0, 0, 0, 0, 0, 0, 0, 0]), // Transfer { amount: 0 }
  });
}

/**
 * The next deposit, then the indexer's proof of it (get_proof's path): it
 * must verify, as the SDK checks it, against the root the chain holds.
 */
async function proofOfNextDeposit(ix: Awaited<ReturnType<typeof indexer>>): Promise<void> {
  const next = freshDeposit();
  await pool.send([next.ix], [pool.depositor]);
  await ix.service.sync("devnet", MINT);
  const onChain = (await ix.chain.treeAccount(MINT))!;
  const tree = ix.indexed.tree;
  expect(tree.nextIndex).toBe(onChain.nextIndex);
  expect(ix.indexed.drift).toBeNull();
  const leafIndex = tree.nextIndex - 1;
  const proof = tree.proof(leafIndex);
  if (!proof.ok) throw new Error(proof.error);
  expect(toHex(rootFromPath(pool.hasher, next.leaf, proof.value.path, proof.value.indices))).toBe(toHex(onChain.root));
}

beforeAll(async () => {
  pool = await startFixturePool();
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe("leaves no log limit can hide, and gaps rebuilt from chain state", () => {
  it("46 zero-amount SPL transfers then a deposit in one transaction: the logs are cut before the pool's, the leaf is indexed and the next deposit's proof verifies", async () => {
    const d = freshDeposit();
    const { tx } = await landV0([...Array.from({ length: 46 }, zeroTransfer), d.ix]);
    const logs = tx.meta!.logMessages!;
    // The runtime stopped logging inside the deposit: where the program used to log its DepositEvent, nothing is.
    expect(logs).toContain("Log truncated");
    expect(logs.indexOf("Log truncated")).toBeGreaterThan(logs.indexOf(`Program ${PROGRAM} invoke [1]`));
    expect(logs.some((l) => l.startsWith(`Program ${PROGRAM} consumed`))).toBe(false);
    expect(decodePoolEventLogs(logs, PROGRAM)).toEqual([]);
    // The event is the program's self-CPI: there all the same.
    expect(poolEventsOfResponse(tx, PROGRAM)).toMatchObject([{ name: "DepositEvent", leafIndex: 7, commitment: d.leaf }]);

    const ix = await indexer();
    expect(ix.indexed.tree.nextIndex).toBe(8);
    await proofOfNextDeposit(ix);
    expect(ix.indexed.repairs ?? 0).toBe(0);
    await ix.db.close();
  });

  it("many deposits in one v0 transaction (lookup table): the logs are cut, every leaf is indexed and the next deposit's proof verifies", async () => {
    // 12: each deposit is 5 entries of the runtime's 64-instruction trace now (itself, 2 account creations, the token transfer, its event CPI).
    const deposits = Array.from({ length: 12 }, () => freshDeposit());
    const { tx } = await landV0(deposits.map((d) => d.ix));
    const logs = tx.meta!.logMessages!;
    // Cut inside the last deposit: the program used to log its DepositEvent at the end, where nothing is now.
    expect(logs).toContain("Log truncated");
    const events = poolEventsOfResponse(tx, PROGRAM);
    expect(events.map((e) => e.name === "DepositEvent" && toHex(e.commitment))).toEqual(deposits.map((d) => toHex(d.leaf)));

    const ix = await indexer();
    expect(ix.indexed.tree.nextIndex).toBe(9 + 12);
    await proofOfNextDeposit(ix);
    await ix.db.close();
  });

  it("an RPC that gives no inner instructions: the deposits' leaves come from their receipts, the repair is logged, and the proof verifies", async () => {
    const lines: string[] = [];
    const ix = await indexer({ faults: { noInnerInstructions: true }, lines });
    expect(ix.indexed.tree.nextIndex).toBe(22);
    expect(ix.indexed.repairs).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => l.includes("repaired a gap from chain state")).length).toBe(ix.indexed.repairs);
    expect(lines.some((l) => /12 deposits without an event read from their receipts/.test(l))).toBe(true);
    await proofOfNextDeposit(ix);
    await ix.db.close();
  });

  it("a relay restarted mid-gap: the store holds the leaves up to the gap; the restarted indexer keeps serving them while the gap cannot be filled, then fills it", async () => {
    // Indexed up to here, then stopped.
    const before = await indexer();
    const upTo = before.indexed.tree.nextIndex;
    await before.db.close();

    // The gap: a many-deposit transaction, then one more deposit; the logs of the first hold few of its events.
    const deposits = Array.from({ length: 12 }, () => freshDeposit());
    await landV0(deposits.map((d) => d.ix));
    await pool.send([freshDeposit().ix], [pool.depositor]);

    // Restarted on an RPC without inner instructions whose receipts are not readable yet: it starts all the same, with what it had.
    const lines: string[] = [];
    const restarted = await indexer({ dir: before.dir, faults: { noInnerInstructions: true, receiptsUnreadable: true }, lines });
    expect(restarted.indexed.tree.nextIndex).toBe(upTo);
    expect(restarted.service.health()[0]).toMatchObject({ ok: false, detail: expect.stringMatching(/receipt .* could not be read/) });
    const held = restarted.indexed.tree.proof(upTo - 1);
    expect(held.ok).toBe(true);
    // It retries (the chain follower's next sync) and fills the gap once the receipts can be read.
    await expect(restarted.service.sync("devnet", MINT)).rejects.toThrow(/could not be read/);
    restarted.faults.receiptsUnreadable = false;
    await restarted.service.sync("devnet", MINT);
    expect(restarted.indexed.tree.nextIndex).toBe(upTo + 13);
    expect(restarted.service.health()[0]!.ok).toBe(true);
    expect(lines.some((l) => l.includes("repaired a gap from chain state"))).toBe(true);
    await proofOfNextDeposit(restarted);
    await restarted.db.close();
  });
});
