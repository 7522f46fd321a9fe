/**
 * Change leaves in chain history (protocol v3) on the local validator: every
 * withdrawal inserts one, and the indexer reads it from the withdraw
 * instruction's data, not from logs, so it finds a withdrawal made by another
 * program through CPI (cpi-proxy, a test program) and one after which the
 * runtime's log limit cut the logs (the proxy logs 10 kB first): its
 * WithdrawEvent, a self-CPI of the program, is still there. Real proofs, the
 * real IndexerService on the sql.js store, roots compared with the on-chain
 * TreeAccount.
 */
import { ComputeBudgetProgram, type TransactionInstruction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toHex } from "../../../src-shared/encoding/bytes";
import { associatedTokenAddress, decodePoolEventLogs, poolTreeAddress, withdrawInstruction } from "../../../src-shared/pool-program";
import { poolEventsOfResponse } from "../../../src-shared/pool-program/leaves";
import { CPI_PROXY_PROGRAM_ID, cpiProxyInstruction, cpiProxyProgram } from "../../../src-localnet/programs/cpi-proxy";
import type { WithdrawalSubmission } from "../../ports/chain";
import { IndexerService } from "../../services/indexer";
import { DurableDb } from "../storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../storage-sqljs/tree-store";
import { createSolanaRpc } from "./rpc";
import { SolanaChain } from "./solana-chain";
import { createAtaIdempotent } from "./solana-context";
import { withdrawParams } from "./withdrawal-submit";
import { tempDirs } from "../../../tests/support/temp-dirs";
import { MINT, PROGRAM, SOL, TEST_TIMING, recipientOf, startFixturePool, type FixturePool } from "../../../tests/support/localnet-pool";

let pool: FixturePool;
const tempDir = tempDirs("leaf-history-");

/** The withdraw instruction of a proved withdrawal, signed by the pool's relayer. */
const withdrawIx = (w: WithdrawalSubmission): TransactionInstruction => withdrawInstruction(withdrawParams(PROGRAM, w, pool.relayer.address));

/** Sends the withdrawal through cpi-proxy (after `logLines` lines of its own), so the pool's withdraw is an inner instruction. */
async function withdrawThroughProxy(w: WithdrawalSubmission, logLines: number) {
  const signature = await pool.send(
    [ComputeBudgetProgram.setComputeUnitLimit({ units: 600_000 }), cpiProxyInstruction(withdrawIx(w), logLines)],
    [pool.relayerKey],
  );
  const tx = await pool.rpc.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
  return { signature, tx: tx! };
}

/** A SolanaChain on its own connection (nothing cached), and an indexer over a fresh or given store. */
async function indexer(dir: string = tempDir()) {
  const rpc = createSolanaRpc({ rpcUrl: pool.validator.rpcUrl, wsUrl: pool.validator.wsUrl, commitment: "confirmed", rpcTimeoutMs: 2_000 });
  const chain = new SolanaChain("devnet", pool.network(), rpc, pool.relayer, pool.hasher, () => {}, { timing: TEST_TIMING });
  const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
  const service = new IndexerService(new SqlTreeStore(db), new Map([["devnet", chain]]), pool.hasher, (_n, mint) => poolTreeAddress(PROGRAM, mint));
  await service.start();
  const indexed = service.get("devnet", MINT)!;
  const onChain = (await chain.treeAccount(MINT))!;
  return { dir, db, chain, indexed, onChain };
}

beforeAll(async () => {
  pool = await startFixturePool({ extraPrograms: [cpiProxyProgram()] });
  // The relayer's fee account (the relay creates it in its own withdrawals).
  const relayer = pool.relayer.address;
  await pool.send([createAtaIdempotent(relayer, associatedTokenAddress(relayer, MINT), relayer, MINT)], [pool.relayerKey]);
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe("change leaves in chain history on the local validator", () => {
  it("a withdrawal made through another program (CPI) inserts its change leaf, which the indexer reads from the inner instruction", async () => {
    const p = await pool.prove(pool.notes[0]!, recipientOf("cpi"), { amount: SOL / 2n });
    const { signature, tx } = await withdrawThroughProxy(p.submission, 0);
    const keys = tx.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    // Top level: the compute budget and the proxy; the pool's withdraw only among the inner instructions.
    expect(tx.transaction.message.compiledInstructions.map((i) => keys[i.programIdIndex])).toEqual([
      "ComputeBudget111111111111111111111111111111",
      CPI_PROXY_PROGRAM_ID,
    ]);
    expect(tx.meta!.innerInstructions!.flatMap((s) => s.instructions.map((i) => keys[i.programIdIndex]))).toContain(PROGRAM);
    expect(poolEventsOfResponse(tx, PROGRAM)).toMatchObject([{ name: "WithdrawEvent", changeLeafIndex: 7 }]);

    const leaves = await pool.leafEvents();
    expect(leaves[7]).toMatchObject({ kind: "change", leafIndex: 7, signature, commitment: p.change.commitment, nullifierHash: p.submission.nullifierHash });
    const { db, indexed, onChain } = await indexer();
    expect(indexed.tree.nextIndex).toBe(8);
    expect(onChain.nextIndex).toBe(8);
    expect(toHex(indexed.tree.root())).toBe(toHex(onChain.root));
    expect(indexed.drift).toBeNull();
    await db.close();
  });

  it("a withdrawal after which the logs were cut still yields its change leaf and its event (a CPI), and the roots agree (also for an indexer that restarts right before it)", async () => {
    // Index what is there now and keep the store: the next sync starts at the cut withdrawal.
    const before = await indexer();
    expect(before.indexed.tree.nextIndex).toBe(8);
    await before.db.close();

    const p = await pool.prove(pool.notes[1]!, recipientOf("cut"), { amount: SOL });
    const { signature, tx } = await withdrawThroughProxy(p.submission, 120);
    const logs = tx.meta!.logMessages!;
    expect(logs.at(-1)).toBe("Log truncated");
    // The pool ran (its change leaf is in the tree account) and none of its lines is in the logs; its event is in the inner instructions.
    expect(decodePoolEventLogs(logs, PROGRAM)).toEqual([]);
    expect(logs.some((l) => l.startsWith(`Program ${PROGRAM} invoke`))).toBe(false);
    expect(poolEventsOfResponse(tx, PROGRAM)).toMatchObject([{ name: "WithdrawEvent", changeLeafIndex: 8 }]);

    const leaves = await pool.leafEvents();
    expect(leaves[8]).toMatchObject({ kind: "change", leafIndex: 8, signature, commitment: p.change.commitment });
    // A fresh indexer places it after the leaves before it.
    const fresh = await indexer();
    expect(fresh.indexed.tree.nextIndex).toBe(9);
    expect(toHex(fresh.indexed.tree.root())).toBe(toHex(fresh.onChain.root));
    expect(fresh.indexed.drift).toBeNull();
    await fresh.db.close();
    // The kept store, on a new connection (nothing cached but its cursor): the page holds only the cut withdrawal, placed by the tree account.
    const resumed = await indexer(before.dir);
    expect(resumed.indexed.tree.nextIndex).toBe(9);
    expect(toHex(resumed.indexed.tree.root())).toBe(toHex(resumed.onChain.root));
    expect(resumed.indexed.drift).toBeNull();
    await resumed.db.close();

    // The change note it left is spendable: its proof is made over the tree the indexer rebuilt.
    const next = await pool.prove(p.changeAt(8), recipientOf("cut, change"), { amount: SOL / 2n });
    const { tx: tx2 } = await withdrawThroughProxy(next.submission, 0);
    expect(poolEventsOfResponse(tx2, PROGRAM)).toMatchObject([{ name: "WithdrawEvent", changeLeafIndex: 9 }]);
  });
});
