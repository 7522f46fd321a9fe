/**
 * A network bound to a real Solana cluster over JSON-RPC (DESIGN §2,
 * docs/solana.md): reads the pool program's accounts, reads deposit history,
 * and lands withdrawals and reverts through the landing engine. Same
 * semantics as the sandbox (SandboxChain): the relay cannot tell them apart.
 */
import { AddressLookupTableAccount, PublicKey, TransactionInstruction, type Finality, type TransactionError } from "@solana/web3.js";
import { Buffer } from "buffer";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { encodeBase58, parseSignature } from "../../../src-shared/encoding/base58";
import type { RpcEndpointStatus } from "../../../src-shared/api/admin";
import type { Network } from "../../../src-shared/networks";
import { redactUrl } from "../../../src-shared/redact-url";
import {
  ACCOUNT_DISCRIMINATORS,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  NULLIFIER_ACCOUNT_SIZE,
  SYSTEM_PROGRAM_ID,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM_ID,
  TREE_ACCOUNT_OFFSETS,
  TREE_ACCOUNT_SIZE,
  assertSwapOutInstruction,
  associatedTokenAddress,
  currentRoot,
  decodeTokenAccount,
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
  withdrawSwapInstruction,
  type PoolErrorName,
  type WithdrawParams,
} from "../../../src-shared/pool-program";
import type { Result } from "../../../src-shared/result";
import type { SwapQuote } from "../../core/swap/quote";
import type { SwapVenueError } from "../../ports/swap-venue";
import type { JupiterInstruction, SwapInstructions } from "../swap-jupiter/decode";
import type { SwapInstructionsRequest } from "../swap-jupiter/jupiter-api";
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
  SwapLeg,
  TreeAccount,
  WithdrawalSubmission,
} from "../../ports/chain";
import type { Signer } from "../keys/keypair-file";
import { fetchDepositEventsPage } from "./deposit-history";
import { LAMPORTS_PER_SIGNATURE } from "./fee-policy";
import { LandingEngine, type LandingOutcome, type LandingTiming, type Refusal } from "./landing-engine";
import { createSolanaRpc, type SolanaRpc } from "./rpc";
import { FailoverRpc } from "./rpc-failover";
import { JUPITER_V6_PROGRAM_ID, checkBalances, checkRoute, relayerTokenAmount } from "./swap-guard";

/** Where a swap leg's instructions come from: Jupiter's POST /swap-instructions (JupiterSwapApi). */
export interface SwapInstructionsSource {
  swapInstructions(quote: SwapQuote, req: SwapInstructionsRequest): Promise<Result<SwapInstructions, SwapVenueError>>;
}

/** Jupiter's aggregator program: its custom error 6001 is SlippageToleranceExceeded (so is the local cp-swap venue's). */
const VENUE_SLIPPAGE_ERROR = 6001;

export interface SolanaChainOptions {
  timing?: LandingTiming;
  /** relay_swap: the venue that builds the swap's instructions (the network's Jupiter). Without it a swap leg is refused SwapFailed. */
  swapInstructions?: SwapInstructionsSource;
  /** The aggregator's program ids a route's instructions may call besides SPL Token, Associated Token, Compute Budget and System (config `jupiter.programIds`; default Jupiter v6). */
  swapPrograms?: readonly string[];
  /** Unix seconds (revert rules). */
  nowSec?: () => number;
}

/** A deposit as read from its transaction and receipt. */
interface LoadedDeposit {
  record: DepositRecord;
  nonce: bigint;
  receipt: string;
}

/**
 * The pool program's refusals of a withdrawal as the relay reports them
 * (docs/pool-program.md "Program errors"). A proof made for other terms
 * (relayer, fee, output mint, minOut) fails InvalidProof; the v2 checks of
 * where funds go and of the swap's assertion (WrongTokenAccount,
 * SwapAssert*, RequiredBalanceTooLow, DuplicateWithdrawSwap) are the relay's
 * transaction or the recipient's accounts at fault, not the proof: Failed
 * (RelayFailed), like every other program error.
 */
export const WITHDRAW_REJECTIONS: Partial<Record<PoolErrorName, ChainRejection>> = {
  NullifierSpent: "NullifierAlreadySpent",
  UnknownRoot: "InvalidRoot",
  InvalidProof: "InvalidProof",
  SwapOutputTooLow: "SlippageExceeded",
};

/**
 * The quote Jupiter's swap-instructions is asked with: the route's own
 * minimum (otherAmountThreshold), raised to the proof's minOut when it is
 * lower, so the venue refuses (SlippageToleranceExceeded) before
 * assert_swap_out has to.
 */
export function atLeast(quote: SwapQuote, minOut: bigint): SwapQuote {
  const raw = typeof quote.raw === "object" && quote.raw !== null ? (quote.raw as Record<string, unknown>) : null;
  // Jupiter builds the swap from the raw quote it is sent back: its threshold is the one that counts.
  const rawThreshold = raw && typeof raw.otherAmountThreshold === "string" && /^[0-9]{1,20}$/.test(raw.otherAmountThreshold) ? BigInt(raw.otherAmountThreshold) : null;
  if (quote.otherAmountThreshold >= minOut && (raw === null || (rawThreshold !== null && rawThreshold >= minOut))) return quote;
  const threshold = quote.otherAmountThreshold > minOut ? quote.otherAmountThreshold : minOut;
  return { ...quote, otherAmountThreshold: threshold, raw: raw ? { ...raw, otherAmountThreshold: threshold.toString() } : quote.raw };
}

/** Landed costs remembered for the fee payer's runway. */
const COST_SAMPLES = 50;

const LAMPORTS_PER_SOL = 1_000_000_000;
const short = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 160);

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
  get feePayer(): string {
    return this.signer.address;
  }
  readonly engine: LandingEngine;
  private readonly programId: string;
  private readonly programKey: PublicKey;
  private readonly finality: Finality;
  private readonly where: string;
  private readonly nowSec: () => number;
  private readonly costs: number[] = [];
  private programAccountsRefused = false;
  private readonly swapSource: SwapInstructionsSource | null;
  private readonly swapPrograms: ReadonlySet<string>;

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
    this.where = cfg.rpcUrls.length > 1 ? `${cfg.rpcUrls.length} endpoints` : cfg.rpcUrl ? redactUrl(cfg.rpcUrl) : "(no rpcUrl)";
    this.nowSec = opts.nowSec ?? (() => Math.floor(Date.now() / 1000));
    this.swapSource = opts.swapInstructions ?? null;
    this.swapPrograms = new Set(opts.swapPrograms ?? [JUPITER_V6_PROGRAM_ID]);
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
    const where = cfg.rpcUrls.length > 1 ? `any of ${cfg.rpcUrls.map(redactUrl).join(", ")}` : redactUrl(cfg.rpcUrl);
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
    if (rpc instanceof FailoverRpc) {
      await rpc.probe();
      for (const e of rpc.endpoints()) log(`${network}: rpc ${e.url}: ${e.healthy ? `healthy at slot ${e.slot}` : `unhealthy (${e.lastError ?? "behind"}); requests go to the others until it recovers`}`);
    }
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

  /** The withdraw instruction's fields, the same for withdraw and withdraw_swap. */
  private withdrawParams(w: WithdrawalSubmission, relayer: string): WithdrawParams {
    return {
      programId: this.programId,
      relayer,
      mint: w.mint,
      proof: w.proof,
      root: w.root,
      nullifierHash: w.nullifierHash,
      recipient: w.recipient,
      amount: w.depositSize,
      fee: w.fee,
    };
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
    if (w.swap) return this.submitSwapWithdrawal(w, w.swap, observer);
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
      withdrawInstruction(this.withdrawParams(w, relayer)),
    );
    // The relayer pays the nullifier account's rent, and the recipient's token account when the program creates it.
    const createdAccountSizes = recipientAtaExists ? [NULLIFIER_ACCOUNT_SIZE] : [NULLIFIER_ACCOUNT_SIZE, TOKEN_ACCOUNT_SIZE];
    const out = await this.engine.land({ instructions, createdAccountSizes, feeBudget: { mint: w.mint, fee: w.fee }, observer, label: `withdraw ${w.mint}` });
    return this.withdrawResult(out);
  }

  /**
   * relay_swap (docs/solana.md "Swaps"): one transaction of
   *   [create the relayer's input token account if missing]
   *   create-idempotent of the recipient's output token account (the relayer pays),
   *   withdraw_swap (depositSize to the relayer's input token account; the fee stays there;
   *     the proof binds the relayer, the fee, the output mint and minOut),
   *   Jupiter's setup, swap (user = relayer, destination = the recipient's output
   *   token account, depositSize − fee in, its minimum no lower than minOut) and cleanup instructions,
   *   assert_swap_out { requiredBalance = the recipient's output balance before + minOut },
   * on the route's address lookup tables. The program itself requires that
   * assert_swap_out (Instructions sysvar) and its requiredBalance ≥ balance + minOut,
   * so minOut holds whatever this code reads. Landed: outAmount is the
   * recipient's output balance delta in that transaction.
   */
  private async submitSwapWithdrawal(w: WithdrawalSubmission, swap: SwapLeg, observer?: SubmissionObserver): Promise<SubmitResult> {
    if (!this.swapSource) return { ok: false, rejection: "SwapFailed", detail: `no swap venue is configured for ${this.network}` };
    const toSwap = w.depositSize - w.fee;
    if (swap.quote.venue !== "jupiter" || swap.quote.inputMint !== w.mint || swap.quote.outputMint !== swap.outputMint || swap.quote.inAmount !== toSwap) {
      return { ok: false, rejection: "SwapFailed", detail: `the quote (${swap.quote.venue}, ${swap.quote.inAmount} ${swap.quote.inputMint} -> ${swap.quote.outputMint}) is not a Jupiter quote of ${toSwap} ${w.mint} -> ${swap.outputMint}` };
    }
    // The proof's minimum is out of the quote's reach: the swap cannot deliver it, so nothing is built or sent.
    if (swap.quote.outAmount < swap.minOut) {
      return { ok: false, rejection: "SlippageExceeded", detail: `the quote pays ${swap.quote.outAmount} ${swap.outputMint}, less than minOut ${swap.minOut}`, outAmount: swap.quote.outAmount };
    }
    const relayer = this.signer.address;
    const out = swap.outputMint;
    const relayerAta = associatedTokenAddress(relayer, w.mint);
    const recipientOut = associatedTokenAddress(w.recipient, out);
    const c = this.cfg.solana.commitment;
    let relayerAtaExists: boolean;
    let recipientOutExists: boolean;
    let balanceBefore: bigint;
    try {
      const [a, b] = await Promise.all([this.rpc.getAccountInfo(new PublicKey(relayerAta), c), this.rpc.getAccountInfo(new PublicKey(recipientOut), c)]);
      relayerAtaExists = a !== null;
      recipientOutExists = b !== null;
      const decoded = b ? decodeTokenAccount(new Uint8Array(b.data)) : null;
      balanceBefore = decoded && decoded.ok ? decoded.value.amount : 0n;
    } catch (e) {
      return { ok: false, rejection: "Failed", detail: `RPC unavailable before sending: ${short(e)}` };
    }

    let route: SwapInstructions;
    try {
      const r = await this.swapSource.swapInstructions(atLeast(swap.quote, swap.minOut), { userPublicKey: relayer, destinationTokenAccount: recipientOut, wrapAndUnwrapSol: false });
      // The quote was good when taken: any failure to build its swap now is SwapFailed (the user may ask again).
      if (!r.ok) return { ok: false, rejection: "SwapFailed", detail: `swap instructions: ${r.error.detail}` };
      route = r.value;
    } catch (e) {
      return { ok: false, rejection: "SwapFailed", detail: `swap instructions: ${short(e)}` };
    }
    // The relayer signs the route: only allowlisted programs, and nothing that moves its funds beyond the swap input.
    const routeIxs = [...route.setupInstructions, route.swapInstruction, ...(route.cleanupInstruction ? [route.cleanupInstruction] : [])];
    const refused = checkRoute(routeIxs, { relayer, inputAccount: relayerAta, maxInput: toSwap, venuePrograms: this.swapPrograms });
    if (refused) {
      this.log(`${this.network}: swap route refused: ${refused}`);
      return { ok: false, rejection: "SwapFailed", detail: `swap route refused: ${refused}` };
    }
    // The relayer's token accounts the route may write, as they are now; the simulation must leave them no lower (the input account +fee).
    const watched = [...new Set([relayerAta, ...routeIxs.flatMap((ix) => ix.accounts.filter((a) => a.isWritable).map((a) => a.pubkey))])];
    const before = new Map<string, bigint>();
    try {
      const infos = await Promise.all(watched.map((a) => this.rpc.getAccountInfo(new PublicKey(a), c)));
      infos.forEach((info, i) => {
        const amount = info ? relayerTokenAmount(info.owner.toBase58(), new Uint8Array(info.data), relayer) : null;
        if (amount !== null || watched[i] === relayerAta) before.set(watched[i]!, amount ?? 0n);
      });
    } catch (e) {
      return { ok: false, rejection: "Failed", detail: `RPC unavailable before sending: ${short(e)}` };
    }
    const addresses = [...before.keys()];
    const simulationCheck = {
      addresses,
      check: (accounts: ({ owner: string; data: Uint8Array } | null)[]) => {
        const after = new Map(addresses.map((a, i) => [a, accounts[i] ? relayerTokenAmount(accounts[i]!.owner, accounts[i]!.data, relayer) : null] as const));
        const why = checkBalances(relayerAta, w.fee, before, after);
        if (why) this.log(`${this.network}: swap refused after simulation: ${why}`);
        return why;
      },
    };
    let lookupTables: AddressLookupTableAccount[];
    try {
      lookupTables = await Promise.all(route.addressLookupTableAddresses.map((a) => this.lookupTable(a)));
    } catch (e) {
      return { ok: false, rejection: "SwapFailed", detail: `the route's address lookup tables: ${short(e)}` };
    }

    const instructions: TransactionInstruction[] = [];
    if (!relayerAtaExists) instructions.push(createAtaIdempotent(relayer, relayerAta, relayer, w.mint));
    instructions.push(createAtaIdempotent(relayer, recipientOut, w.recipient, out));
    instructions.push(
      withdrawSwapInstruction({ ...this.withdrawParams(w, relayer), outputMint: out, minOut: swap.minOut }),
    );
    // Indexes in the landed transaction: the engine puts its two compute-budget instructions first.
    const venue = new Set<number>();
    for (const ix of routeIxs) {
      venue.add(instructions.length + 2);
      instructions.push(toInstruction(ix));
    }
    // assert_swap_out checks the recipient's balance: what they held before plus the proof's minOut (withdraw_swap refuses less).
    const assertAt = instructions.length + 2;
    instructions.push(assertSwapOutInstruction({ programId: this.programId, recipient: w.recipient, outputMint: out, requiredBalance: balanceBefore + swap.minOut }));

    const createdAccountSizes = recipientOutExists ? [NULLIFIER_ACCOUNT_SIZE] : [NULLIFIER_ACCOUNT_SIZE, TOKEN_ACCOUNT_SIZE];
    const landed = await this.engine.land({
      instructions,
      createdAccountSizes,
      feeBudget: { mint: w.mint, fee: w.fee },
      observer,
      label: `withdraw_swap ${w.mint} -> ${out}`,
      addressLookupTables: lookupTables,
      simulationCheck,
    });
    if (landed.kind === "vetoed") return { ok: false, rejection: "SwapFailed", detail: `swap refused after simulation (nothing sent): ${landed.detail}` };
    if (landed.kind === "refused") {
      const failed = failedInstruction(landed.err);
      if (failed && failed.index === assertAt) {
        return { ok: false, rejection: "SlippageExceeded", detail: `${refusalDetail(landed, "SwapOutputTooLow")}: the recipient would receive less than ${swap.minOut} ${out}` };
      }
      if (failed && venue.has(failed.index)) {
        const slippage = typeof failed.error === "object" && failed.error !== null && "Custom" in failed.error && failed.error.Custom === VENUE_SLIPPAGE_ERROR;
        const where = landed.stage === "simulation" ? "simulation refused the transaction" : `transaction ${landed.signature} failed on chain`;
        return slippage
          ? { ok: false, rejection: "SlippageExceeded", detail: `${where}: the swap would pay less than the quote's minimum (${JSON.stringify(failed.error)})` }
          : { ok: false, rejection: "SwapFailed", detail: `${where}: the swap instruction failed (${JSON.stringify(failed.error)})` };
      }
    }
    const result = this.withdrawResult(landed);
    if (!result.ok || landed.kind !== "landed") return result;
    const outAmount = await this.outputDelta(landed.signature, recipientOut, balanceBefore);
    if (outAmount !== null) this.log(`${this.network}: swap of ${toSwap} ${w.mint} paid ${outAmount} ${out} to ${w.recipient} (quoted ${swap.quote.outAmount}, minimum ${swap.minOut})`);
    return outAmount === null ? result : { ...result, outAmount };
  }

  /** An address lookup table as the v0 message needs it. */
  private async lookupTable(address: string): Promise<AddressLookupTableAccount> {
    const key = new PublicKey(address);
    const info = await this.rpc.getAccountInfo(key, this.cfg.solana.commitment);
    if (!info) throw new Error(`lookup table ${address} does not exist`);
    return new AddressLookupTableAccount({ key, state: AddressLookupTableAccount.deserialize(new Uint8Array(info.data)) });
  }

  /** The recipient's output balance change in the landed transaction (pre/postTokenBalances), else the balance now less the balance before. */
  private async outputDelta(signature: string, account: string, before: bigint): Promise<bigint | null> {
    try {
      const tx = await this.rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: this.finality });
      if (tx?.meta) {
        const keys = tx.transaction.message
          .getAccountKeys({ accountKeysFromLookups: tx.meta.loadedAddresses ?? null })
          .keySegments()
          .flat()
          .map((k) => k.toBase58());
        const index = keys.indexOf(account);
        const amount = (list: typeof tx.meta.postTokenBalances) => BigInt(list?.find((b) => b.accountIndex === index)?.uiTokenAmount.amount ?? "0");
        if (index >= 0 && tx.meta.postTokenBalances) return amount(tx.meta.postTokenBalances) - amount(tx.meta.preTokenBalances);
      }
    } catch (e) {
      this.log(`${this.network}: reading swap transaction ${signature} failed (${short(e)}); reading the balance instead`);
    }
    try {
      const info = await this.rpc.getAccountInfo(new PublicKey(account), this.cfg.solana.commitment);
      const decoded = info ? decodeTokenAccount(new Uint8Array(info.data)) : null;
      return decoded && decoded.ok ? decoded.value.amount - before : null;
    } catch {
      return null;
    }
  }

  private withdrawResult(out: LandingOutcome): SubmitResult {
    switch (out.kind) {
      case "landed":
        this.noteCost(out.networkFeeLamports + out.rentLamports);
        this.log(`${this.network}: withdrawal ${out.signature} landed in slot ${out.slot}; network fee ${out.networkFeeLamports} lamports, rent ${out.rentLamports} lamports`);
        return { ok: true, signature: out.signature };
      case "refused": {
        const name = this.poolError(out);
        return { ok: false, rejection: (name && WITHDRAW_REJECTIONS[name]) ?? "Failed", detail: refusalDetail(out, name) };
      }
      case "unprofitable":
        return { ok: false, rejection: "Unprofitable", detail: out.detail };
      case "unknown":
        return { ok: false, rejection: "Unknown", detail: `${out.detail} (transaction ${out.signature})` };
      case "expired":
      case "not-sent":
      case "vetoed":
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
      case "vetoed":
        return { ok: false, rejection: "Failed", detail: out.detail };
    }
  }

  private poolError(out: Refusal): PoolErrorName | null {
    return poolErrorFromTransactionError(out.err, (i) => out.programIds[i] === this.programId)?.name ?? poolErrorFromLogs(out.logs);
  }

  // ------------------------------------------------------------------ health

  rpcEndpoints(): RpcEndpointStatus[] {
    return this.rpc instanceof FailoverRpc ? this.rpc.endpoints() : [];
  }

  async health(): Promise<HealthCheck[]> {
    return Promise.all([this.chainCheck(), this.feePayerCheck()]);
  }

  private async chainCheck(): Promise<HealthCheck> {
    const name = `chain:${this.network}`;
    const max = this.cfg.solana.maxSlotLag;
    try {
      const [h, slot] = await Promise.all([this.rpc.getHealth(), this.rpc.getSlot(this.cfg.solana.commitment)]);
      const eps = this.rpc instanceof FailoverRpc ? this.rpc.endpoints() : [];
      const down = eps.filter((e) => !e.healthy);
      const endpoints = eps.length > 1 ? `; ${eps.length - down.length} of ${eps.length} endpoints healthy${down.length ? ` (down: ${down.map((e) => e.url).join(", ")})` : ""}` : "";
      if (h.ok) return { name, ok: true, detail: `solana RPC ${this.where} at slot ${slot}${h.unsupported ? " (no getHealth)" : ""}${endpoints}` };
      if (h.behindBySlots !== null) {
        const ok = h.behindBySlots <= max;
        return { name, ok, detail: `solana RPC ${this.where} at slot ${slot}, ${h.behindBySlots} slots behind the cluster (max ${max})` };
      }
      return { name, ok: false, detail: `solana RPC ${this.where} unhealthy: ${h.message.slice(0, 120)}` };
    } catch (e) {
      return { name, ok: false, detail: `solana RPC ${this.where} unreachable: ${short(e)}` };
    }
  }

  /** The fee payer's balance (metrics and the runway alert). */
  async feePayerLamports(): Promise<bigint> {
    return BigInt(await this.rpc.getBalance(new PublicKey(this.signer.publicKey), this.cfg.solana.commitment));
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

/** A Jupiter instruction as web3.js wants it. */
function toInstruction(ix: JupiterInstruction): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(ix.programId),
    keys: ix.accounts.map((a) => ({ pubkey: new PublicKey(a.pubkey), isSigner: a.isSigner, isWritable: a.isWritable })),
    data: Buffer.from(ix.data),
  });
}

/** `{ InstructionError: [index, error] }`: which instruction failed, and how. */
function failedInstruction(err: TransactionError | string): { index: number; error: unknown } | null {
  if (typeof err !== "object" || err === null || !("InstructionError" in err)) return null;
  const ie = (err as { InstructionError: unknown }).InstructionError;
  if (!Array.isArray(ie) || typeof ie[0] !== "number") return null;
  return { index: ie[0], error: ie[1] };
}
