/**
 * The JSON-RPC methods of the local validator, answered in the shapes
 * @solana/web3.js v1 validates (RpcResponseAndContext where the real node
 * uses it), plus the test-only `localnet_*` methods.
 */
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import bs58 from "bs58";
import { TOKEN_PROGRAM_ID } from "../../src-shared/pool-program";
import type { Faults, FaultSettings } from "../faults";
import { transactionErrorText } from "../ledger/errors";
import type { Commitment, Ledger, LedgerSnapshot, TransactionRecord } from "../ledger/ledger";
import { decodeMint, readTokenAccount, uiTokenAmount } from "../ledger/token";
import { decodeMessageForFee, decodeTransaction, TransactionDecodeError, type DecodedTransaction } from "../ledger/transaction";
import { createCpPool } from "../programs/cp-swap-client";
import {
  asParams,
  atLeastConfirmed,
  commitmentParam,
  configAt,
  dataSliceParam,
  encodeAccount,
  encodingParam,
  filtersParam,
  invalidParams,
  matchesFilters,
  pubkeyParam,
  RpcError,
  type Params,
} from "./common";

export const SOLANA_CORE_VERSION = "2.1.21";
export const FEATURE_SET = 1725507508;
const SLOTS_PER_EPOCH = 432_000;
/** Statuses older than this are found only with searchTransactionHistory (the status cache). */
const STATUS_CACHE_SLOTS = 300;

export interface RpcNodeOptions {
  ledger: Ledger;
  faults: Faults;
  faucet: Keypair;
  /** What localnet_status reports about the endpoints. */
  info?: () => Record<string, unknown>;
}

type Handler = (params: Params) => unknown;

export class RpcNode {
  readonly ledger: Ledger;
  readonly faults: Faults;
  readonly faucet: Keypair;
  private readonly info: () => Record<string, unknown>;
  private readonly handlers: Record<string, Handler>;
  private delayed: { dueSlot: number; tx: DecodedTransaction }[] = [];
  private readonly offSlot: () => void;

  constructor(opts: RpcNodeOptions) {
    this.ledger = opts.ledger;
    this.faults = opts.faults;
    this.faucet = opts.faucet;
    this.info = opts.info ?? (() => ({}));
    this.offSlot = this.ledger.on("slot", (slot) => this.landDue(slot));
    this.handlers = this.createHandlers();
  }

  dispose(): void {
    this.offSlot();
    this.delayed = [];
  }

  get methods(): string[] {
    return Object.keys(this.handlers);
  }

  async call(method: string, params: unknown): Promise<unknown> {
    const handler = Object.hasOwn(this.handlers, method) ? this.handlers[method] : undefined;
    if (!handler) throw new RpcError(-32601, "Method not found");
    const p = asParams(params);
    // Any method's config may carry minContextSlot: a node behind it refuses, as agave does.
    const config = p.find((x): x is { minContextSlot: unknown } => !!x && typeof x === "object" && !Array.isArray(x) && "minContextSlot" in x);
    if (config && typeof config.minContextSlot === "number" && config.minContextSlot > this.reportedSlot) {
      throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: this.reportedSlot });
    }
    return handler(p);
  }

  // ------------------------------------------------------------ the node's view

  /** The slot this node reports (behind by lagSlots). */
  get reportedSlot(): number {
    return Math.max(0, this.ledger.slot - this.faults.lagSlots);
  }

  private context() {
    return { slot: this.reportedSlot, apiVersion: SOLANA_CORE_VERSION };
  }

  private withContext<T>(value: T) {
    return { context: this.context(), value };
  }

  private healthError(): RpcError | null {
    const lag = this.faults.lagSlots;
    return lag > 0 ? new RpcError(-32005, `Node is behind by ${lag} slots`, { numSlotsBehind: lag }) : null;
  }

  // ------------------------------------------------------------ transactions

  private decodeWire(encoded: unknown, encoding: unknown): DecodedTransaction {
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
      if (e instanceof TransactionDecodeError) throw invalidParams(`failed to deserialize solana_sdk::transaction::versioned::VersionedTransaction: ${e.message}`);
      throw e;
    }
  }

  private async simulateWithFaults(tx: DecodedTransaction, opts: Parameters<Ledger["simulate"]>[1]) {
    const injected = this.faults.takeSimulationFailure();
    if (injected) return { err: injected.err, logs: injected.logs, unitsConsumed: 0, innerInstructions: [], returnData: null, accounts: null };
    return this.ledger.simulate(tx, opts);
  }

  /** Delivers an accepted transaction to the "leader", through the faults. */
  private deliver(tx: DecodedTransaction): void {
    if (this.faults.takeExpire()) {
      this.ledger.expireBlockhash(tx.recentBlockhash);
      return;
    }
    if (this.faults.takeDrop()) return;
    const delay = this.faults.landDelaySlots;
    if (delay > 0) {
      this.delayed.push({ dueSlot: this.ledger.slot + delay, tx });
      return;
    }
    void this.land(tx);
  }

  private landDue(slot: number): void {
    if (!this.delayed.length) return;
    const due = this.delayed.filter((d) => d.dueSlot <= slot);
    if (!due.length) return;
    this.delayed = this.delayed.filter((d) => d.dueSlot > slot);
    for (const d of due) void this.land(d.tx);
  }

  private async land(tx: DecodedTransaction) {
    try {
      return await this.ledger.submit(tx);
    } catch (e) {
      console.error(`[localnet] processing ${tx.signature} failed`, e);
      return null;
    }
  }

  /** Sends lamports from the faucet as a real signed transaction; resolves once it landed. */
  async airdrop(address: string, lamports: bigint): Promise<string> {
    if (lamports <= 0n) throw invalidParams("Invalid params: lamports must be positive");
    const { blockhash, lastValidBlockHeight } = this.ledger.latestBlockhash();
    const tx = new Transaction({ feePayer: this.faucet.publicKey, blockhash, lastValidBlockHeight }).add(
      SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: new PublicKey(address), lamports }),
    );
    tx.sign(this.faucet);
    const decoded = decodeTransaction(tx.serialize());
    const outcome = await this.ledger.submit(decoded);
    if (!outcome.landed) throw new RpcError(-32603, `airdrop failed: ${transactionErrorText(outcome.err)}`);
    if (outcome.record.err) throw new RpcError(-32603, `airdrop failed: ${transactionErrorText(outcome.record.err)}`, { logs: outcome.record.logs });
    return outcome.record.signature;
  }

  // ------------------------------------------------------------ encodings

  private statusOf(r: TransactionRecord) {
    const level = this.ledger.commitmentOf(r.slot);
    return {
      slot: r.slot,
      confirmations: level === "finalized" ? null : this.ledger.slot - r.slot,
      err: r.err,
      status: r.err === null ? { Ok: null } : { Err: r.err },
      confirmationStatus: level,
    };
  }

  private transactionJson(r: TransactionRecord, encoding: string, maxVersion: number | undefined) {
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

  // ------------------------------------------------------------ handlers

  private createHandlers(): Record<string, Handler> {
    const ledger = this.ledger;
    return {
      getHealth: () => {
        const e = this.healthError();
        if (e) throw e;
        return "ok";
      },
      getVersion: () => ({ "solana-core": SOLANA_CORE_VERSION, "feature-set": FEATURE_SET }),
      getGenesisHash: () => ledger.genesisHash,
      getIdentity: () => ({ identity: this.faucet.publicKey.toBase58() }),
      getSlot: () => this.reportedSlot,
      getBlockHeight: () => this.reportedSlot,
      getTransactionCount: () => ledger.transactionCount,
      getFirstAvailableBlock: () => 0,
      minimumLedgerSlot: () => 0,
      getEpochInfo: () => {
        const slot = this.reportedSlot;
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
        const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash(this.reportedSlot);
        return this.withContext({ blockhash, lastValidBlockHeight });
      },
      isBlockhashValid: (p) => {
        if (typeof p[0] !== "string") throw invalidParams("Invalid params: blockhash");
        return this.withContext(ledger.isBlockhashValid(p[0]));
      },
      getFeeForMessage: (p) => {
        if (typeof p[0] !== "string") throw invalidParams("Invalid params: message");
        let decoded: ReturnType<typeof decodeMessageForFee>;
        try {
          decoded = decodeMessageForFee(new Uint8Array(Buffer.from(p[0], "base64")));
        } catch (e) {
          throw invalidParams(`invalid message: ${(e as Error).message}`);
        }
        return this.withContext(ledger.isBlockhashValid(decoded.recentBlockhash) ? Number(decoded.fee) : null);
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
      getBalance: (p) => {
        const address = pubkeyParam(p[0]);
        configAt(p, 1);
        return this.withContext(Number(ledger.getBalance(address)));
      },
      getAccountInfo: (p) => {
        const address = pubkeyParam(p[0]);
        const config = configAt(p, 1);
        const a = ledger.getAccount(address);
        return this.withContext(a ? encodeAccount(a, encodingParam(config, "base58"), dataSliceParam(config)) : null);
      },
      getMultipleAccounts: (p) => {
        if (!Array.isArray(p[0])) throw invalidParams("Invalid params: expected an array of addresses");
        if (p[0].length > 100) throw invalidParams("Too many inputs provided; max 100");
        const config = configAt(p, 1);
        const encoding = encodingParam(config, "base64");
        const slice = dataSliceParam(config);
        return this.withContext(
          p[0].map((x) => {
            const a = ledger.getAccount(pubkeyParam(x));
            return a ? encodeAccount(a, encoding, slice) : null;
          }),
        );
      },
      getProgramAccounts: (p) => {
        const program = pubkeyParam(p[0]);
        const config = configAt(p, 1);
        const encoding = encodingParam(config, "base64");
        const slice = dataSliceParam(config);
        const filters = filtersParam(config.filters);
        const out = [];
        for (const [pubkey, a] of ledger.accountsOwnedBy(program)) {
          if (!matchesFilters(a, filters)) continue;
          out.push({ pubkey, account: encodeAccount(a, encoding, slice) });
        }
        return config.withContext === true ? this.withContext(out) : out;
      },
      getTokenAccountsByOwner: (p) => {
        const owner = pubkeyParam(p[0]);
        const filter = configAt(p, 1);
        const config = configAt(p, 2);
        const mint = filter.mint !== undefined ? pubkeyParam(filter.mint, "mint") : null;
        if (mint === null) {
          if (filter.programId === undefined) throw invalidParams("Invalid params: expected { mint } or { programId }");
          if (pubkeyParam(filter.programId, "programId") !== TOKEN_PROGRAM_ID) throw invalidParams("Invalid param: unrecognized Token program id");
        }
        const encoding = encodingParam(config, "base64");
        const out = [];
        for (const [pubkey, a] of ledger.accountsOwnedBy(TOKEN_PROGRAM_ID)) {
          const t = readTokenAccount(a);
          if (!t || t.owner !== owner || (mint !== null && t.mint !== mint)) continue;
          out.push({ pubkey, account: encodeAccount(a, encoding) });
        }
        return this.withContext(out);
      },
      getTokenAccountBalance: (p) => {
        const address = pubkeyParam(p[0]);
        const t = readTokenAccount(ledger.getAccount(address));
        if (!t) throw invalidParams("Invalid param: not a Token account");
        return this.withContext(uiTokenAmount(t.amount, ledger.decimalsOf(t.mint)));
      },
      getTokenSupply: (p) => {
        const mint = pubkeyParam(p[0]);
        const a = ledger.getAccount(mint);
        const m = a && a.owner === TOKEN_PROGRAM_ID ? decodeMint(a.data) : null;
        if (!m) throw invalidParams("Invalid param: not a Token mint");
        return this.withContext(uiTokenAmount(m.supply, m.decimals));
      },
      requestAirdrop: async (p) => {
        const address = pubkeyParam(p[0]);
        const lamports = p[1];
        if (typeof lamports !== "number" || !Number.isSafeInteger(lamports) || lamports <= 0) throw invalidParams("Invalid params: lamports");
        return this.airdrop(address, BigInt(lamports));
      },
      simulateTransaction: async (p) => {
        const config = configAt(p, 1);
        const tx = this.decodeWire(p[0], config.encoding);
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
        const sim = await this.simulateWithFaults(tx, { verifySignatures: false, replaceRecentBlockhash: replace, accounts: addresses });
        return this.withContext({
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
        const tx = this.decodeWire(p[0], config.encoding);
        if (config.skipPreflight !== true) {
          if (!ledger.verifySignatures(tx)) throw new RpcError(-32003, "Transaction signature verification failure");
          const unhealthy = this.healthError();
          if (unhealthy) throw unhealthy;
          const sim = await this.simulateWithFaults(tx, { verifySignatures: false });
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
        this.deliver(tx);
        return tx.signature;
      },
      getSignatureStatuses: (p) => {
        if (!Array.isArray(p[0])) throw invalidParams("Invalid params: expected an array of signatures");
        if (p[0].length > 256) throw invalidParams("Too many inputs provided; max 256");
        const search = configAt(p, 1).searchTransactionHistory === true;
        return this.withContext(
          p[0].map((sig) => {
            if (typeof sig !== "string") throw invalidParams("Invalid param: signature");
            const r = ledger.getTransaction(sig);
            if (!r) return null;
            if (!search && r.slot < ledger.slot - STATUS_CACHE_SLOTS) return null;
            return this.statusOf(r);
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
        return this.transactionJson(r, encoding, maxVersion);
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

      // ---------------------------------------------------- test-only methods
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
          return this.faults.set(configAt(p, 0) as FaultSettings);
        } catch (e) {
          throw invalidParams((e as Error).message);
        }
      },
      localnet_clearFaults: () => {
        this.faults.clear();
        return this.faults.get();
      },
      localnet_getFaults: () => this.faults.get(),
      localnet_status: () => ({
        slot: ledger.slot,
        blockHeight: ledger.blockHeight,
        reportedSlot: this.reportedSlot,
        genesisHash: ledger.genesisHash,
        transactionCount: ledger.transactionCount,
        pendingDelayed: this.delayed.length,
        faucet: this.faucet.publicKey.toBase58(),
        programs: ledger.programIds,
        faults: this.faults.get(),
        ...this.info(),
      }),
      localnet_advanceSlots: (p) => {
        const n = configAt(p, 0).slots ?? 1;
        if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 100_000) throw invalidParams("Invalid params: slots");
        ledger.advanceSlots(n as number);
        return { slot: ledger.slot };
      },
      localnet_airdrop: async (p) => {
        const args = configAt(p, 0);
        return { signature: await this.airdrop(pubkeyParam(args.address, "address"), parseAmount(args.lamports)) };
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
}

function parseAmount(value: unknown): bigint {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value);
  throw invalidParams("Invalid params: amount must be a non-negative integer (number or decimal string)");
}

export type { Commitment };
