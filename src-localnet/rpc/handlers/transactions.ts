/**
 * The transaction methods: airdrops, simulation, sending (preflight, then the
 * leader through the faults), signature statuses, transactions and the
 * signatures of an address.
 */
import { transactionErrorText } from "../../ledger/errors";
import { atLeastConfirmed, commitmentParam, configAt, encodeAccount, invalidParams, pubkeyParam, RpcError } from "../common";
import { decodeWire, statusJson, transactionJson } from "../encodings";
import type { Handlers, NodeContext } from "../node-context";

/** Statuses older than this are found only with searchTransactionHistory (the status cache). */
const STATUS_CACHE_SLOTS = 300;

export function transactionHandlers(node: NodeContext): Handlers {
  const ledger = node.ledger;
  return {
    requestAirdrop: async (p) => {
      const address = pubkeyParam(p[0]);
      const lamports = p[1];
      if (typeof lamports !== "number" || !Number.isSafeInteger(lamports) || lamports <= 0) throw invalidParams("Invalid params: lamports");
      return node.leader.airdrop(address, BigInt(lamports));
    },
    simulateTransaction: async (p) => {
      const config = configAt(p, 1);
      const tx = decodeWire(p[0], config.encoding);
      const sigVerify = config.sigVerify === true;
      const replace = config.replaceRecentBlockhash === true;
      if (sigVerify && replace) throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
      if (sigVerify && !ledger.verifySignatures(tx)) throw new RpcError(-32003, "Transaction signature verification failure");
      const accountsConfig = config.accounts as { addresses?: unknown[]; encoding?: unknown } | undefined;
      const addresses = accountsConfig?.addresses?.map((a) => pubkeyParam(a));
      if (accountsConfig?.encoding !== undefined && accountsConfig.encoding !== "base64" && accountsConfig.encoding !== "base64+zstd") {
        throw invalidParams("Invalid params: simulated accounts must use base64 encoding");
      }
      const replacement = replace ? ledger.latestBlockhash() : null;
      const sim = await node.leader.simulate(tx, { verifySignatures: false, replaceRecentBlockhash: replace, accounts: addresses });
      return node.withContext({
        err: sim.err,
        logs: sim.logs,
        accounts: addresses ? (sim.accounts ?? addresses.map(() => null)).map((a) => (a ? encodeAccount(a, "base64") : null)) : null,
        unitsConsumed: sim.unitsConsumed,
        returnData: sim.returnData,
        innerInstructions: config.innerInstructions === true ? sim.innerInstructions : null,
        replacementBlockhash: replacement ? { blockhash: replacement.blockhash, lastValidBlockHeight: replacement.lastValidBlockHeight } : null,
      });
    },
    sendTransaction: async (p) => {
      const config = configAt(p, 1);
      const tx = decodeWire(p[0], config.encoding);
      if (config.skipPreflight !== true) {
        if (!ledger.verifySignatures(tx)) throw new RpcError(-32003, "Transaction signature verification failure");
        const unhealthy = node.healthError();
        if (unhealthy) throw unhealthy;
        const sim = await node.leader.simulate(tx, { verifySignatures: false });
        if (sim.err !== null) {
          throw new RpcError(-32002, `Transaction simulation failed: ${transactionErrorText(sim.err)}`, {
            accounts: null,
            err: sim.err,
            innerInstructions: null,
            logs: sim.logs,
            replacementBlockhash: null,
            returnData: sim.returnData,
            unitsConsumed: sim.unitsConsumed,
          });
        }
      }
      node.leader.deliver(tx);
      return tx.signature;
    },
    getSignatureStatuses: (p) => {
      if (!Array.isArray(p[0])) throw invalidParams("Invalid params: expected an array of signatures");
      if (p[0].length > 256) throw invalidParams("Too many inputs provided; max 256");
      const search = configAt(p, 1).searchTransactionHistory === true;
      return node.withContext(
        p[0].map((sig) => {
          if (typeof sig !== "string") throw invalidParams("Invalid param: signature");
          const r = ledger.getTransaction(sig);
          if (!r) return null;
          if (!search && r.slot < ledger.slot - STATUS_CACHE_SLOTS) return null;
          return statusJson(ledger, r);
        }),
      );
    },
    getTransaction: (p) => {
      if (typeof p[0] !== "string") throw invalidParams("Invalid param: signature");
      const config = typeof p[1] === "string" ? { encoding: p[1] } : configAt(p, 1);
      const commitment = commitmentParam(config);
      atLeastConfirmed(commitment);
      const encoding = (config.encoding as string | undefined) ?? "json";
      if (!["json", "jsonParsed", "base64", "base58"].includes(encoding)) throw invalidParams(`Invalid params: unsupported encoding ${encoding}`);
      const maxVersion = config.maxSupportedTransactionVersion as number | undefined;
      const r = ledger.getTransaction(p[0]);
      if (!r || !ledger.reached(r.slot, commitment)) return null;
      return transactionJson(r, encoding, maxVersion);
    },
    getSignaturesForAddress: (p) => {
      const address = pubkeyParam(p[0]);
      const config = configAt(p, 1);
      const commitment = commitmentParam(config);
      atLeastConfirmed(commitment);
      const limit = config.limit ?? 1000;
      if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 1000) throw invalidParams("Invalid limit; max 1000");
      const before = config.before as string | undefined;
      const until = config.until as string | undefined;
      return ledger.signaturesForAddress(address, { before, until, limit: limit as number, commitment }).map((r) => ({
        signature: r.signature,
        slot: r.slot,
        err: r.err,
        memo: null,
        blockTime: r.blockTime,
        confirmationStatus: ledger.commitmentOf(r.slot),
      }));
    },
  };
}
