/**
 * A network bound to a real Solana cluster over JSON-RPC (DESIGN §2,
 * docs/solana.md): reads the pool program's accounts, reads deposit history,
 * and lands withdrawals and reverts through the landing engine. Same
 * semantics as the sandbox (SandboxChain): the relay cannot tell them apart.
 */
import { PublicKey, TransactionInstruction, type Finality } from "@solana/web3.js";
import { Buffer } from "buffer";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { encodeBase58, parseSignature } from "../../../src-shared/encoding/base58";
import type { Network } from "../../../src-shared/networks";
import {
  ACCOUNT_DISCRIMINATORS,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  NULLIFIER_ACCOUNT_SIZE,
  SYSTEM_PROGRAM_ID,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM_ID,
  TREE_ACCOUNT_OFFSETS,
  TREE_ACCOUNT_SIZE,
  associatedTokenAddress,
  currentRoot,
  decodeDepositReceipt,
  decodePoolEventLogs,
  decodeTreeAccount,
  depositReceiptAddress,
  poolErrorFromLogs,
  poolErrorFromTransactionError,
  poolNullifierAddress,
  poolTreeAddress,
  publicKeyBytes,
  revertInstruction,
  revertMarkerAddress,
  revertNullifierOfReceipt,
  withdrawInstruction,
  type PoolErrorName,
} from "../../../src-shared/pool-program";
import type { NetworkConfig } from "../../config/schema";
import { judgeRevert } from "../../core/revert/rules";
import type {
  ChainBackend,
  ChainRejection,
  DepositEventPage,
  DepositRecord,
  HealthCheck,
  RevertRejection,
  RevertResult,
  RevertSubmission,
  SubmissionObserver,
  SubmitResult,
  TreeAccount,
  WithdrawalSubmission,
} from "../../ports/chain";
import type { Signer } from "../keys/keypair-file";
import { fetchDepositEventsPage } from "./deposit-history";
import { LAMPORTS_PER_SIGNATURE } from "./fee-policy";
import { LandingEngine, type LandingOutcome, type LandingTiming, type Refusal } from "./landing-engine";
import { createSolanaRpc, type SolanaRpc } from "./rpc";

export interface SolanaChainOptions {
  timing?: LandingTiming;
  /** Unix seconds (revert rules). */
  nowSec?: () => number;
}

/** A deposit as read from its transaction and receipt. */
interface LoadedDeposit {
  record: DepositRecord;
  nonce: bigint;
  receipt: string;
}

/** Landed costs remembered for the fee payer's runway. */
const COST_SAMPLES = 50;

const LAMPORTS_PER_SOL = 1_000_000_000;
const short = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 160);

/** The URL's origin only: a provider's API key lives in its path or query and must not reach logs or /health. */
export function redactRpcUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname.length > 1 || u.search ? `${u.origin}/…` : u.origin;
  } catch {
    return "(invalid URL)";
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export class SolanaChain implements ChainBackend {
  readonly kind = "solana" as const;
  readonly engine: LandingEngine;
  private readonly programId: string;
  private readonly programKey: PublicKey;
  private readonly finality: Finality;
  private readonly where: string;
  private readonly nowSec: () => number;
  private readonly costs: number[] = [];
  private programAccountsRefused = false;

  constructor(
    readonly network: Network,
    private readonly cfg: NetworkConfig,
    readonly rpc: SolanaRpc,
    private readonly signer: Signer,
    private readonly hasher: FieldHasher,
    private readonly log: (line: string) => void = () => {},
    opts: SolanaChainOptions = {},
  ) {
    this.programId = cfg.programId;
    this.programKey = new PublicKey(cfg.programId);
    this.finality = cfg.solana.commitment === "finalized" ? "finalized" : "confirmed";
    this.where = cfg.rpcUrl ? redactRpcUrl(cfg.rpcUrl) : "(no rpcUrl)";
    this.nowSec = opts.nowSec ?? (() => Math.floor(Date.now() / 1000));
    this.engine = new LandingEngine(rpc, signer, cfg.solana, opts.timing, (line) => log(`${network}: ${line}`));
  }

  /**
   * Start-up checks: the RPC answers and the pool program is deployed at
   * `programId`. Throws an Error naming the RPC (origin) and the program id.
   */
  static async connect(
    network: Network,
    cfg: NetworkConfig,
    signer: Signer,
    hasher: FieldHasher,
    log: (line: string) => void = () => {},
    opts: SolanaChainOptions & { rpc?: SolanaRpc } = {},
  ): Promise<SolanaChain> {
    if (!cfg.rpcUrl) throw new Error(`networks.${network}.rpcUrl is required for the solana backend`);
    const where = redactRpcUrl(cfg.rpcUrl);
    const s = cfg.solana;
    const rpc = opts.rpc ?? createSolanaRpc({ rpcUrl: cfg.rpcUrl, wsUrl: cfg.wsUrl, commitment: s.commitment, rpcTimeoutMs: s.rpcTimeoutMs });
    let version: string;
    let slot: number;
    try {
      const [v, sl] = await withTimeout(Promise.all([rpc.getVersion(), rpc.getSlot(s.commitment)]), s.rpcTimeoutMs, "the RPC");
      version = v["solana-core"];
      slot = sl;
    } catch (e) {
      throw new Error(`networks.${network}: the Solana RPC at ${where} does not answer (${short(e)}); check networks.${network}.rpcUrl`);
    }
    let program;
    try {
      program = await withTimeout(rpc.getAccountInfo(new PublicKey(cfg.programId), s.commitment), s.rpcTimeoutMs, "the RPC");
    } catch (e) {
      throw new Error(`networks.${network}: reading program ${cfg.programId} from the Solana RPC at ${where} failed (${short(e)})`);
    }
    if (!program) throw new Error(`networks.${network}: program ${cfg.programId} does not exist on the cluster at ${where}; check networks.${network}.programId`);
    if (!program.executable) throw new Error(`networks.${network}: account ${cfg.programId} on the cluster at ${where} is not an executable program; check networks.${network}.programId`);
    log(`${network}: solana RPC ${where} (solana-core ${version}, slot ${slot}), pool program ${cfg.programId}, relayer ${signer.address}`);
    return new SolanaChain(network, cfg, rpc, signer, hasher, log, opts);
  }

  // ------------------------------------------------------------------ reads

  async listPools(): Promise<string[]> {
    const mints = new Set<string>();
    try {
      const accounts = await this.rpc.getProgramAccounts(this.programKey, {
        commitment: this.cfg.solana.commitment,
        filters: [{ dataSize: TREE_ACCOUNT_SIZE }, { memcmp: { offset: 0, bytes: encodeBase58(ACCOUNT_DISCRIMINATORS.TreeAccount) } }],
        dataSlice: { offset: TREE_ACCOUNT_OFFSETS.mint, length: 32 },
      });
      for (const a of accounts) {
        if (a.account.data.length !== 32) continue;
        const mint = encodeBase58(a.account.data);
        // Only the program writes its accounts; the PDA check keeps the list to real pools all the same.
        if (poolTreeAddress(this.programId, mint) === a.pubkey.toBase58()) mints.add(mint);
      }
    } catch (e) {
      // Many providers refuse getProgramAccounts: the configured pools still work.
      if (!this.programAccountsRefused) this.log(`${this.network}: getProgramAccounts failed (${short(e)}); listing the configured pools only`);
      this.programAccountsRefused = true;
    }
    for (const mint of this.cfg.pools) if (!mints.has(mint) && (await this.treeAccount(mint))) mints.add(mint);
    return [...mints];
  }

  fetchDepositEvents(mint: string, cursor: string | null, limit: number): Promise<DepositEventPage> {
    return fetchDepositEventsPage(this.rpc, { programId: this.programId, mint, treeAddress: poolTreeAddress(this.programId, mint) }, cursor, limit, { commitment: this.finality });
  }

  async treeAccount(mint: string): Promise<TreeAccount | null> {
    const address = poolTreeAddress(this.programId, mint);
    const info = await this.rpc.getAccountInfo(new PublicKey(address), this.cfg.solana.commitment);
    if (!info || !info.owner.equals(this.programKey)) return null;
    const tree = decodeTreeAccount(new Uint8Array(info.data));
    if (!tree.ok) throw new Error(`${this.network}: tree account ${address} of ${mint} does not decode: ${tree.error}`);
    return { root: currentRoot(tree.value), nextIndex: tree.value.nextIndex };
  }

  async isNullifierSpent(mint: string, nullifierHash: Uint8Array): Promise<boolean> {
    return this.programAccountExists(poolNullifierAddress(this.programId, mint, nullifierHash));
  }

  async spentBy(mint: string, nullifierHash: Uint8Array): Promise<string | null> {
    const address = poolNullifierAddress(this.programId, mint, nullifierHash);
    if (!(await this.programAccountExists(address))) return null;
    // The nullifier account's history starts with the withdrawal that created it.
    const history = await this.rpc.getSignaturesForAddress(new PublicKey(address), { limit: 1000 }, this.finality);
    const created = history.filter((h) => h.err === null).at(-1);
    return created ? created.signature : null;
  }

  /** Lamports sent to a PDA make a system-owned account there; only the program's own account counts. */
  private async programAccountExists(address: string): Promise<boolean> {
    const info = await this.rpc.getAccountInfo(new PublicKey(address), this.cfg.solana.commitment);
    return info !== null && info.owner.equals(this.programKey);
  }

  async findDeposit(signature: string): Promise<DepositRecord | null> {
    return (await this.loadDeposit(signature))?.record ?? null;
  }

  /**
   * The deposit event our program logged in this transaction, the mint whose
   * receipt PDA (["deposit", mint, depositor, nonce]) is among the
   * transaction's accounts, and the receipt's current status.
   */
  private async loadDeposit(signature: string): Promise<LoadedDeposit | null> {
    if (!parseSignature(signature).ok) return null;
    const tx = await this.rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: this.finality });
    if (!tx || !tx.meta || tx.meta.err) return null;
    const event = decodePoolEventLogs(tx.meta.logMessages, this.programId).find((e) => e.name === "DepositEvent" || e.name === "DepositFailedEvent");
    if (!event || (event.name !== "DepositEvent" && event.name !== "DepositFailedEvent")) return null;
    const depositor = encodeBase58(event.depositor);
    const keys = tx.transaction.message
      .getAccountKeys({ accountKeysFromLookups: tx.meta.loadedAddresses ?? null })
      .keySegments()
      .flat()
      .map((k) => k.toBase58());
    const keySet = new Set(keys);
    let mint: string | null = null;
    let receipt: string | null = null;
    for (const k of keys) {
      const r = depositReceiptAddress(this.programId, k, depositor, event.nonce);
      if (keySet.has(r)) {
        mint = k;
        receipt = r;
        break;
      }
    }
    if (!mint || !receipt) return null;
    const info = await this.rpc.getAccountInfo(new PublicKey(receipt), this.cfg.solana.commitment);
    const decoded = info && info.owner.equals(this.programKey) ? decodeDepositReceipt(new Uint8Array(info.data)) : null;
    const record: DepositRecord =
      decoded && decoded.ok
        ? { signature, mint, amount: decoded.value.amount, depositor, status: decoded.value.status, createdAt: Number(decoded.value.createdAt) }
        : {
            signature,
            mint,
            amount: event.amount,
            depositor,
            status: event.name === "DepositEvent" ? "indexed" : "failed",
            createdAt: tx.blockTime ?? this.nowSec(),
          };
    return { record, nonce: event.nonce, receipt };
  }

  // ------------------------------------------------------------------ writes

  async submitWithdrawal(w: WithdrawalSubmission, observer?: SubmissionObserver): Promise<SubmitResult> {
    if (w.swap) {
      return {
        ok: false,
        rejection: "SwapFailed",
        detail: "relay_swap on a solana network needs Jupiter's swap instructions in the withdrawal transaction (withdraw_swap + swap + assert_swap_out), which this relay does not build yet; use /relay",
      };
    }
    const relayer = this.signer.address;
    const relayerAta = associatedTokenAddress(relayer, w.mint);
    const recipientAta = associatedTokenAddress(w.recipient, w.mint);
    let relayerAtaExists: boolean;
    let recipientAtaExists: boolean;
    try {
      const c = this.cfg.solana.commitment;
      const [a, b] = await Promise.all([this.rpc.getAccountInfo(new PublicKey(relayerAta), c), this.rpc.getAccountInfo(new PublicKey(recipientAta), c)]);
      relayerAtaExists = a !== null;
      recipientAtaExists = b !== null;
    } catch (e) {
      return { ok: false, rejection: "Failed", detail: `RPC unavailable before sending: ${short(e)}` };
    }
    const instructions: TransactionInstruction[] = [];
    // The relayer's own token account receives the fee. Its rent stays the relayer's (recoverable), so it is not charged to this relay.
    if (!relayerAtaExists) instructions.push(createAtaIdempotent(relayer, relayerAta, relayer, w.mint));
    instructions.push(
      withdrawInstruction({
        programId: this.programId,
        relayer,
        mint: w.mint,
        proof: w.proof,
        root: w.root,
        nullifierHash: w.nullifierHash,
        recipient: w.recipient,
        amount: w.depositSize,
        fee: w.fee,
      }),
    );
    // The relayer pays the nullifier account's rent, and the recipient's token account when the program creates it.
    const createdAccountSizes = recipientAtaExists ? [NULLIFIER_ACCOUNT_SIZE] : [NULLIFIER_ACCOUNT_SIZE, TOKEN_ACCOUNT_SIZE];
    const out = await this.engine.land({ instructions, createdAccountSizes, feeBudget: { mint: w.mint, fee: w.fee }, observer, label: `withdraw ${w.mint}` });
    return this.withdrawResult(out);
  }

  private withdrawResult(out: LandingOutcome): SubmitResult {
    switch (out.kind) {
      case "landed":
        this.noteCost(out.networkFeeLamports + out.rentLamports);
        this.log(`${this.network}: withdrawal ${out.signature} landed in slot ${out.slot}; network fee ${out.networkFeeLamports} lamports, rent ${out.rentLamports} lamports`);
        return { ok: true, signature: out.signature };
      case "refused": {
        const name = this.poolError(out);
        const map: Partial<Record<PoolErrorName, ChainRejection>> = {
          NullifierSpent: "NullifierAlreadySpent",
          UnknownRoot: "InvalidRoot",
          InvalidProof: "InvalidProof",
          SwapOutputTooLow: "SlippageExceeded",
        };
        return { ok: false, rejection: (name && map[name]) ?? "Failed", detail: refusalDetail(out, name) };
      }
      case "unprofitable":
        return { ok: false, rejection: "Unprofitable", detail: out.detail };
      case "unknown":
        return { ok: false, rejection: "Unknown", detail: `${out.detail} (transaction ${out.signature})` };
      case "expired":
      case "not-sent":
        return { ok: false, rejection: "Failed", detail: out.detail };
    }
  }

  async revertDeposit(r: RevertSubmission): Promise<RevertResult> {
    const d = await this.loadDeposit(r.depositSignature);
    if (!d) return { ok: false, rejection: "DepositNotFound", detail: "no deposit of this pool program with this signature" };
    const { mint, depositor } = d.record;
    const revertNullifier = revertNullifierOfReceipt(this.hasher, publicKeyBytes(d.receipt));
    const spent = await this.programAccountExists(revertMarkerAddress(this.programId, mint, revertNullifier));
    const verdict = judgeRevert(d.record, r.depositor, spent, this.nowSec(), { pendingRevertAfterSec: 0 });
    if (!verdict.ok) return { ok: false, rejection: verdict.error.error, detail: verdict.error.detail };
    const ix = revertInstruction({ programId: this.programId, authority: this.signer.address, mint, depositor, nonce: d.nonce, revertNullifier });
    const out = await this.engine.land({ instructions: [ix], createdAccountSizes: [NULLIFIER_ACCOUNT_SIZE], feeBudget: null, label: `revert ${r.depositSignature}` });
    switch (out.kind) {
      case "landed":
        this.log(`${this.network}: revert ${out.signature} of deposit ${r.depositSignature} landed; network fee ${out.networkFeeLamports} lamports, rent ${out.rentLamports} lamports`);
        return { ok: true, signature: out.signature, amount: d.record.amount, mint };
      case "refused": {
        const name = this.poolError(out);
        const map: Partial<Record<PoolErrorName, RevertRejection>> = { NullifierSpent: "NullifierSpent", NotRevertable: "AlreadyIndexed" };
        const detail = name === "NotAuthority" ? `the relayer ${this.signer.address} is not the pool's authority, so it cannot revert` : refusalDetail(out, name);
        return { ok: false, rejection: (name && map[name]) ?? "Failed", detail };
      }
      case "unknown":
        return { ok: false, rejection: "Unknown", detail: `${out.detail} (transaction ${out.signature})` };
      case "unprofitable":
      case "expired":
      case "not-sent":
        return { ok: false, rejection: "Failed", detail: out.detail };
    }
  }

  private poolError(out: Refusal): PoolErrorName | null {
    return poolErrorFromTransactionError(out.err, (i) => out.programIds[i] === this.programId)?.name ?? poolErrorFromLogs(out.logs);
  }

  // ------------------------------------------------------------------ health

  async health(): Promise<HealthCheck[]> {
    return Promise.all([this.chainCheck(), this.feePayerCheck()]);
  }

  private async chainCheck(): Promise<HealthCheck> {
    const name = `chain:${this.network}`;
    const max = this.cfg.solana.maxSlotLag;
    try {
      const [h, slot] = await Promise.all([this.rpc.getHealth(), this.rpc.getSlot(this.cfg.solana.commitment)]);
      if (h.ok) return { name, ok: true, detail: `solana RPC ${this.where} at slot ${slot}${h.unsupported ? " (no getHealth)" : ""}` };
      if (h.behindBySlots !== null) {
        const ok = h.behindBySlots <= max;
        return { name, ok, detail: `solana RPC ${this.where} at slot ${slot}, ${h.behindBySlots} slots behind the cluster (max ${max})` };
      }
      return { name, ok: false, detail: `solana RPC ${this.where} unhealthy: ${h.message.slice(0, 120)}` };
    } catch (e) {
      return { name, ok: false, detail: `solana RPC ${this.where} unreachable: ${short(e)}` };
    }
  }

  private async feePayerCheck(): Promise<HealthCheck> {
    const name = `fee-payer:${this.network}`;
    const min = this.cfg.solana.minFeePayerLamports;
    try {
      const balance = await this.rpc.getBalance(new PublicKey(this.signer.publicKey), this.cfg.solana.commitment);
      const per = await this.costPerRelay();
      const runway = per ? `, ≈ ${Math.floor(balance / per)} relays left at ${per} lamports each` : "";
      const ok = BigInt(balance) >= min;
      return { name, ok, detail: `${this.signer.address} holds ${sol(balance)} SOL (minimum ${sol(Number(min))})${runway}` };
    } catch (e) {
      return { name, ok: false, detail: `balance of ${this.signer.address} unavailable: ${short(e)}` };
    }
  }

  /** Average cost (network fee + rent) of the recent landed withdrawals, else the estimate of one. */
  private async costPerRelay(): Promise<number | null> {
    if (this.costs.length) return Math.ceil(this.costs.reduce((a, b) => a + b, 0) / this.costs.length);
    try {
      return LAMPORTS_PER_SIGNATURE + (await this.engine.rentExempt(NULLIFIER_ACCOUNT_SIZE));
    } catch {
      return null;
    }
  }

  private noteCost(lamports: number): void {
    this.costs.push(lamports);
    if (this.costs.length > COST_SAMPLES) this.costs.shift();
  }
}

function sol(lamports: number): string {
  return (lamports / LAMPORTS_PER_SOL).toFixed(4);
}

function refusalDetail(out: Refusal, name: PoolErrorName | null): string {
  const where = out.stage === "simulation" ? "simulation refused the transaction" : `transaction ${out.signature} failed on chain`;
  return `${where}: ${name ?? (typeof out.err === "string" ? out.err : JSON.stringify(out.err))}`;
}

/** The associated token account program's CreateIdempotent: payer, account, wallet, mint, system program, token program. */
function createAtaIdempotent(payer: string, ata: string, owner: string, mint: string): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: new PublicKey(payer), isSigner: true, isWritable: true },
      { pubkey: new PublicKey(ata), isSigner: false, isWritable: true },
      { pubkey: new PublicKey(owner), isSigner: false, isWritable: false },
      { pubkey: new PublicKey(mint), isSigner: false, isWritable: false },
      { pubkey: new PublicKey(SYSTEM_PROGRAM_ID), isSigner: false, isWritable: false },
      { pubkey: new PublicKey(TOKEN_PROGRAM_ID), isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]),
  });
}
