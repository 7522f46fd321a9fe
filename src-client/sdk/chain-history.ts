/**
 * A pool's history read from the chain by the wallet itself (protocol v3):
 * every leaf the pool program inserted (deposit leaves with their public
 * amount, change leaves) and every withdrawal (its nullifierHash, the part it
 * took, its change leaf). Leaves come from src-shared/pool-program/leaves.ts,
 * the same pure reader the relay's indexer uses: change leaves from the
 * instruction data, never from logs alone. The amount a withdrawal took is
 * read from its instruction's data too.
 */
import { PublicKey, type Connection, type Finality } from "@solana/web3.js";
import { toHex } from "../../src-shared/encoding/bytes";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { decodePoolInstruction } from "../../src-shared/pool-program";
import { executionOrder, insertedLeaves, leafTransactionOfResponse, type LeafTransaction } from "../../src-shared/pool-program/leaves";

/** One leaf of the pool: a deposit's amount is public, a change leaf's value is not. */
export interface PoolLeaf {
  index: number;
  kind: "deposit" | "change";
  commitment: Uint8Array;
  /** A deposit's amount in base units; null for a change leaf. */
  amount: bigint | null;
}

/** A withdrawal that landed, as its instruction states it. */
export interface PoolWithdrawal {
  signature: string;
  nullifierHash: Uint8Array;
  /** The part of the note withdrawn. */
  amount: bigint;
  fee: bigint;
  /** base58 */
  recipient: string;
  changeCommitment: Uint8Array;
  /** Null when neither the event nor a neighbouring leaf fixed it. */
  changeLeafIndex: number | null;
}

export interface PoolHistory {
  leaves: Map<number, PoolLeaf>;
  /** By nullifierHash in hex. */
  withdrawals: Map<string, PoolWithdrawal>;
  /** Transactions whose logs disagreed with their instructions (never used for leaves). */
  problems: string[];
}

/** Signatures per getSignaturesForAddress call (the RPC's maximum). */
const SIGNATURES_PER_CALL = 1000;
/** getTransaction calls in flight at once. */
const TRANSACTIONS_IN_FLIGHT = 8;

/** web3.js hands out Buffers; the SDK's byte values are plain Uint8Arrays, which compare equal to each other. */
const bytes = (b: Uint8Array): Uint8Array => Uint8Array.from(b);

/** The withdrawals of `programId` in a transaction, from the instructions' data, in execution order. */
function withdrawalsOf(tx: LeafTransaction, programId: string): Omit<PoolWithdrawal, "signature" | "changeLeafIndex">[] {
  const out: Omit<PoolWithdrawal, "signature" | "changeLeafIndex">[] = [];
  for (const ix of executionOrder(tx)) {
    if (ix.programId !== programId) continue;
    const d = decodePoolInstruction(ix.data);
    if (!d.ok || (d.value.name !== "withdraw" && d.value.name !== "withdraw_swap")) continue;
    const w = d.value;
    out.push({
      nullifierHash: bytes(w.nullifierHash),
      amount: w.amount,
      fee: w.fee,
      recipient: encodeBase58(w.recipient),
      changeCommitment: bytes(w.changeCommitment),
    });
  }
  return out;
}

/**
 * Every transaction that touched the tree account (getSignaturesForAddress
 * back to the first, then getTransaction), read for the leaves it inserted
 * into that tree and the withdrawals it made.
 */
export async function readPoolHistory(
  connection: Connection,
  programId: string,
  treeAddress: string,
  commitment: Finality = "confirmed",
): Promise<PoolHistory> {
  const address = new PublicKey(treeAddress);
  const signatures: string[] = [];
  let before: string | undefined;
  for (;;) {
    const batch = await connection.getSignaturesForAddress(address, { limit: SIGNATURES_PER_CALL, ...(before ? { before } : {}) }, commitment);
    for (const s of batch) if (s.err === null) signatures.push(s.signature);
    if (batch.length < SIGNATURES_PER_CALL) break;
    before = batch[batch.length - 1]!.signature;
  }
  const history: PoolHistory = { leaves: new Map(), withdrawals: new Map(), problems: [] };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < signatures.length) {
      const signature = signatures[next++]!;
      const response = await connection.getTransaction(signature, { commitment, maxSupportedTransactionVersion: 0 });
      if (!response?.meta || response.meta.err) continue;
      const tx = leafTransactionOfResponse(response as Parameters<typeof leafTransactionOfResponse>[0]);
      const found = insertedLeaves(tx, programId);
      if (found.problems.length > 0) {
        history.problems.push(`${signature}: ${found.problems.join("; ")}`);
        continue;
      }
      const withdrawals = withdrawalsOf(tx, programId);
      for (const leaf of found.leaves) {
        if (leaf.tree !== treeAddress) continue;
        if (leaf.kind === "deposit") {
          history.leaves.set(leaf.leafIndex, { index: leaf.leafIndex, kind: "deposit", commitment: bytes(leaf.commitment), amount: leaf.amount });
          continue;
        }
        const w = withdrawals.find((x) => toHex(x.nullifierHash) === toHex(leaf.nullifierHash));
        if (leaf.leafIndex !== null)
          history.leaves.set(leaf.leafIndex, { index: leaf.leafIndex, kind: "change", commitment: bytes(leaf.commitment), amount: null });
        if (w) history.withdrawals.set(toHex(w.nullifierHash), { ...w, signature, changeLeafIndex: leaf.leafIndex });
      }
    }
  };
  await Promise.all(Array.from({ length: TRANSACTIONS_IN_FLIGHT }, worker));
  return history;
}
