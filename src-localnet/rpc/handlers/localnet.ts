/**
 * The test-only `localnet_*` methods: token credits, swap pools, faults,
 * status, slots, airdrops, snapshot and restore.
 */
import type { FaultSettings } from "../../faults";
import type { LedgerSnapshot } from "../../ledger/types";
import { readTokenAccount } from "../../ledger/token";
import { createCpPool } from "../../programs/cp-swap-client";
import { configAt, invalidParams, pubkeyParam } from "../common";
import type { Handlers, NodeContext } from "../node-context";

export function localnetHandlers(node: NodeContext): Handlers {
  const ledger = node.ledger;
  return {
    localnet_mintTo: (p) => {
      const args = configAt(p, 0);
      const owner = pubkeyParam(args.owner, "owner");
      const mint = pubkeyParam(args.mint, "mint");
      const amount = parseAmount(args.amount);
      const tokenAccount = ledger.mintTo(owner, mint, amount);
      return { tokenAccount, amount: readTokenAccount(ledger.getAccount(tokenAccount))!.amount.toString() };
    },
    localnet_createSwapPool: (p) => {
      const args = configAt(p, 0);
      const mintA = pubkeyParam(args.mintA, "mintA");
      const mintB = pubkeyParam(args.mintB, "mintB");
      let info;
      try {
        info = createCpPool(ledger, mintA, mintB, parseAmount(args.reserveA), parseAmount(args.reserveB));
      } catch (e) {
        throw invalidParams(`Invalid params: ${(e as Error).message}`);
      }
      return { ...info, reserveA: info.reserveA.toString(), reserveB: info.reserveB.toString() };
    },
    localnet_setFaults: (p) => {
      try {
        return node.faults.set(configAt(p, 0) as FaultSettings);
      } catch (e) {
        throw invalidParams((e as Error).message);
      }
    },
    localnet_clearFaults: () => {
      node.faults.clear();
      return node.faults.get();
    },
    localnet_getFaults: () => node.faults.get(),
    localnet_status: () => ({
      slot: ledger.slot,
      blockHeight: ledger.blockHeight,
      reportedSlot: node.reportedSlot(),
      genesisHash: ledger.genesisHash,
      transactionCount: ledger.transactionCount,
      pendingDelayed: node.leader.pendingDelayed,
      faucet: node.faucet.publicKey.toBase58(),
      programs: ledger.programIds,
      faults: node.faults.get(),
      ...node.info(),
    }),
    localnet_advanceSlots: (p) => {
      const n = configAt(p, 0).slots ?? 1;
      if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 100_000) throw invalidParams("Invalid params: slots");
      ledger.advanceSlots(n as number);
      return { slot: ledger.slot };
    },
    localnet_airdrop: async (p) => {
      const args = configAt(p, 0);
      return { signature: await node.leader.airdrop(pubkeyParam(args.address, "address"), parseAmount(args.lamports)) };
    },
    localnet_snapshot: async () => {
      await ledger.idle();
      return ledger.snapshot();
    },
    localnet_restore: async (p) => {
      await ledger.idle();
      try {
        ledger.restore(configAt(p, 0) as unknown as LedgerSnapshot);
      } catch (e) {
        throw invalidParams((e as Error).message);
      }
      return { slot: ledger.slot };
    },
  };
}

function parseAmount(value: unknown): bigint {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value);
  throw invalidParams("Invalid params: amount must be a non-negative integer (number or decimal string)");
}
