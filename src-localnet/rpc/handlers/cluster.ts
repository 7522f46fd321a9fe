/**
 * The node and cluster methods: health, version, identity, slots and epoch,
 * blockhashes, message fees, rent and recent prioritization fees.
 */
import { decodeMessageForFee } from "../../ledger/transaction";
import { invalidParams, pubkeyParam } from "../common";
import { FEATURE_SET, SOLANA_CORE_VERSION, type Handlers, type NodeContext } from "../node-context";

const SLOTS_PER_EPOCH = 432_000;

export function clusterHandlers(node: NodeContext): Handlers {
  const ledger = node.ledger;
  return {
    getHealth: () => {
      const e = node.healthError();
      if (e) throw e;
      return "ok";
    },
    getVersion: () => ({ "solana-core": SOLANA_CORE_VERSION, "feature-set": FEATURE_SET }),
    getGenesisHash: () => ledger.genesisHash,
    getIdentity: () => ({ identity: node.faucet.publicKey.toBase58() }),
    getSlot: () => node.reportedSlot(),
    getBlockHeight: () => node.reportedSlot(),
    getTransactionCount: () => ledger.transactionCount,
    getFirstAvailableBlock: () => 0,
    minimumLedgerSlot: () => 0,
    getEpochInfo: () => {
      const slot = node.reportedSlot();
      return {
        absoluteSlot: slot,
        blockHeight: slot,
        epoch: Math.floor(slot / SLOTS_PER_EPOCH),
        slotIndex: slot % SLOTS_PER_EPOCH,
        slotsInEpoch: SLOTS_PER_EPOCH,
        transactionCount: ledger.transactionCount,
      };
    },
    getLatestBlockhash: () => {
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash(node.reportedSlot());
      return node.withContext({ blockhash, lastValidBlockHeight });
    },
    isBlockhashValid: (p) => {
      if (typeof p[0] !== "string") throw invalidParams("Invalid params: blockhash");
      return node.withContext(ledger.isBlockhashValid(p[0]));
    },
    getFeeForMessage: (p) => {
      if (typeof p[0] !== "string") throw invalidParams("Invalid params: message");
      let decoded: ReturnType<typeof decodeMessageForFee>;
      try {
        decoded = decodeMessageForFee(new Uint8Array(Buffer.from(p[0], "base64")));
      } catch (e) {
        throw invalidParams(`invalid message: ${(e as Error).message}`);
      }
      return node.withContext(ledger.isBlockhashValid(decoded.recentBlockhash) ? Number(decoded.fee) : null);
    },
    getMinimumBalanceForRentExemption: (p) => {
      const size = p[0] ?? 0;
      if (!Number.isInteger(size) || (size as number) < 0) throw invalidParams("Invalid params: data length");
      return Number(ledger.rentExempt(size as number));
    },
    getRecentPrioritizationFees: (p) => {
      const list = p[0] ?? [];
      if (!Array.isArray(list)) throw invalidParams("Invalid params: expected an array of addresses");
      if (list.length > 128) throw invalidParams("Too many inputs provided; max 128");
      return ledger.recentPrioritizationFees(list.map((a) => pubkeyParam(a)));
    },
  };
}
