/**
 * Transactions on the wire: decoding a sent transaction (base58 or base64),
 * and a landed one's signature status and getTransaction answer in the
 * shapes @solana/web3.js v1 validates.
 */
import bs58 from "bs58";
import type { Ledger } from "../ledger/ledger";
import { decodeTransaction, TransactionDecodeError, type DecodedTransaction } from "../ledger/transaction";
import type { TransactionRecord } from "../ledger/types";
import { invalidParams, RpcError } from "./common";

export function decodeWire(encoded: unknown, encoding: unknown): DecodedTransaction {
  if (typeof encoded !== "string") throw invalidParams("Invalid params: the transaction must be an encoded string");
  let wire: Uint8Array;
  const enc = encoding ?? "base58";
  try {
    if (enc === "base64") wire = new Uint8Array(Buffer.from(encoded, "base64"));
    else if (enc === "base58") wire = bs58.decode(encoded);
    else throw invalidParams(`Invalid params: unsupported encoding: ${String(enc)}. Supported encodings: base58, base64`);
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw invalidParams(`invalid ${String(enc)} encoding: ${(e as Error).message}`);
  }
  try {
    return decodeTransaction(wire);
  } catch (e) {
    if (e instanceof TransactionDecodeError)
      throw invalidParams(`failed to deserialize solana_sdk::transaction::versioned::VersionedTransaction: ${e.message}`);
    throw e;
  }
}

export function statusJson(ledger: Ledger, r: TransactionRecord) {
  const level = ledger.commitmentOf(r.slot);
  return {
    slot: r.slot,
    confirmations: level === "finalized" ? null : ledger.slot - r.slot,
    err: r.err,
    status: r.err === null ? { Ok: null } : { Err: r.err },
    confirmationStatus: level,
  };
}

export function transactionJson(r: TransactionRecord, encoding: string, maxVersion: number | undefined) {
  if (r.version === 0 && (maxVersion === undefined || maxVersion < 0)) {
    throw new RpcError(
      -32015,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  let transaction: unknown;
  if (encoding === "base64") transaction = [r.wire, "base64"];
  else if (encoding === "base58") transaction = [bs58.encode(Buffer.from(r.wire, "base64")), "base58"];
  else if (encoding === "jsonParsed") {
    const staticCount = r.message.accountKeys.length;
    transaction = {
      signatures: r.signatures,
      message: {
        accountKeys: r.accountKeys.map((pubkey, i) => ({
          pubkey,
          signer: i < r.message.header.numRequiredSignatures,
          writable: r.writable[i]!,
          source: i < staticCount ? "transaction" : "lookupTable",
        })),
        instructions: r.message.instructions.map((ix) => ({
          programId: r.accountKeys[ix.programIdIndex]!,
          accounts: ix.accounts.map((a) => r.accountKeys[a]!),
          data: ix.data,
          stackHeight: null,
        })),
        recentBlockhash: r.message.recentBlockhash,
        ...(r.message.addressTableLookups ? { addressTableLookups: r.message.addressTableLookups } : {}),
      },
    };
  } else transaction = { signatures: r.signatures, message: r.message };
  return {
    slot: r.slot,
    blockTime: r.blockTime,
    ...(maxVersion !== undefined ? { version: r.version } : {}),
    transaction,
    meta: {
      err: r.err,
      status: r.err === null ? { Ok: null } : { Err: r.err },
      fee: r.fee,
      preBalances: r.preBalances,
      postBalances: r.postBalances,
      innerInstructions:
        encoding === "jsonParsed"
          ? (r.innerInstructions ?? []).map((inner) => ({
              index: inner.index,
              instructions: inner.instructions.map((ix) => ({
                programId: r.accountKeys[ix.programIdIndex]!,
                accounts: ix.accounts.map((a) => r.accountKeys[a]!),
                data: ix.data,
                stackHeight: ix.stackHeight,
              })),
            }))
          : (r.innerInstructions ?? []),
      logMessages: r.logs,
      preTokenBalances: r.preTokenBalances,
      postTokenBalances: r.postTokenBalances,
      rewards: [],
      loadedAddresses: r.loadedAddresses,
      computeUnitsConsumed: r.unitsConsumed,
      ...(r.returnData ? { returnData: r.returnData } : {}),
    },
  };
}
