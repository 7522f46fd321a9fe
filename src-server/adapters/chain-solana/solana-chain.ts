/**
 * A network bound to a real Solana cluster over JSON-RPC (docs/solana.md):
 * reads the pool program's accounts and leaf history (deposits and change leaves) here, and hands each
 * write to its own module: plain withdrawals (withdrawal-submit.ts), swaps
 * (swap-submit.ts), deposits and reverts (deposit-revert.ts), health checks
 * (solana-health.ts). Same semantics as the sandbox (SandboxChain): the relay
 * cannot tell them apart.
 */
import { PublicKey } from "@solana/web3.js";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import type { RpcEndpointStatus } from "../../../src-shared/api/admin";
import type { Network } from "../../../src-shared/networks";
import { redactUrl } from "../../../src-shared/redact-url";
import {
  ACCOUNT_DISCRIMINATORS,
  TREE_ACCOUNT_OFFSETS,
  TREE_ACCOUNT_SIZE,
  currentRoot,
  decodeTreeAccount,
  poolNullifierAddress,
  poolTreeAddress,
} from "../../../src-shared/pool-program";
import type { NetworkConfig } from "../../config/schema";
import type {
  ChainBackend,
  DepositRecord,
  HealthCheck,
  LeafEventPage,
  RevertResult,
  RevertSubmission,
  SubmissionObserver,
  SubmitResult,
  TreeAccount,
  WithdrawalSubmission,
} from "../../ports/chain";
import type { Signer } from "../../../src-shared/node/keypair-file";
import { fetchLeafEventsPage } from "./deposit-history";
import { loadDeposit, revertDeposit } from "./deposit-revert";
import { LandingEngine, type LandingTiming } from "./landing-engine";
import { LookupTableError, relayTableAddresses } from "../../../src-shared/solana/lookup-tables";
import { RelayLookupTables } from "./lookup-tables";
import { createSolanaRpc, type SolanaRpc } from "./rpc";
import { FailoverRpc } from "./rpc-failover";
import { programAccountExists, short, type SolanaContext } from "./solana-context";
import { RelayCosts, chainCheck, feePayerCheck } from "./solana-health";
import { submitSwapWithdrawal, type SwapInstructionsSource, type SwapSetup } from "./swap-submit";
import { JUPITER_V6_PROGRAM_ID } from "./swap-guard";
import { submitPlainWithdrawal } from "./withdrawal-submit";

export { atLeast, type SwapInstructionsSource } from "./swap-submit";
export { WITHDRAW_REJECTIONS } from "./withdrawal-submit";

export interface SolanaChainOptions {
  timing?: LandingTiming;
  /** relay_swap: the venue that builds the swap's instructions (the network's Jupiter). Without it a swap leg is refused SwapFailed. */
  swapInstructions?: SwapInstructionsSource;
  /** The aggregator's program ids a route's instructions may call besides SPL Token, Associated Token, Compute Budget and System (config `jupiter.programIds`; default Jupiter v6). */
  swapPrograms?: readonly string[];
  /** Unix seconds (revert rules). */
  nowSec?: () => number;
  /** The relay's own lookup tables (solana.lookupTables), as connect() read and checked them. */
  lookupTables?: RelayLookupTables | null;
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

/**
 * The relay's own lookup tables, read and checked at start: each must exist, be
 * owned by the lookup-table program and not be deactivated, or the network does
 * not start (an error naming the table). Null when none is configured.
 */
async function relayLookupTables(
  network: Network,
  cfg: NetworkConfig,
  signer: Signer,
  where: string,
  log: (line: string) => void,
  rpc: SolanaRpc,
): Promise<RelayLookupTables | null> {
  const s = cfg.solana;
  if (s.lookupTables.length === 0) return null;
  let tables: RelayLookupTables;
  try {
    tables = await withTimeout(
      RelayLookupTables.load({ rpc, addresses: s.lookupTables, commitment: s.commitment, log: (l) => log(`${network}: ${l}`) }),
      s.rpcTimeoutMs,
      "the RPC",
    );
  } catch (e) {
    const what =
      e instanceof LookupTableError ? `${e.message} on the cluster at ${where}` : `reading them from the Solana RPC at ${where} failed (${short(e)})`;
    throw new Error(`networks.${network}.solana.lookupTables: ${what}; make or extend the relay's table with npm run pool:lookup-table`, { cause: e });
  }
  // Not an error: a table without a pool's accounts only leaves that pool's transactions larger.
  const missing = tables.missing(relayTableAddresses(cfg.programId, cfg.pools, signer.address));
  const held = tables.accounts.reduce((n, t) => n + t.state.addresses.length, 0);
  log(
    `${network}: lookup tables ${s.lookupTables.join(", ")} (${held} addresses)${missing.length ? `; they lack ${missing.length} of the configured pools' fixed accounts (extend them with npm run pool:lookup-table -- --table …)` : ""}`,
  );
  return tables;
}

export class SolanaChain implements ChainBackend {
  readonly kind = "solana" as const;
  get feePayer(): string {
    return this.signer.address;
  }
  readonly engine: LandingEngine;
  private readonly programId: string;
  private readonly programKey: PublicKey;
  /** The RPC as health details name it (redacted). */
  private readonly where: string;
  private readonly ctx: SolanaContext;
  private readonly costs = new RelayCosts();
  private readonly swaps: SwapSetup;
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
    this.where = cfg.rpcUrls.length > 1 ? `${cfg.rpcUrls.length} endpoints` : cfg.rpcUrl ? redactUrl(cfg.rpcUrl) : "(no rpcUrl)";
    this.swaps = { source: opts.swapInstructions ?? null, programs: new Set(opts.swapPrograms ?? [JUPITER_V6_PROGRAM_ID]) };
    this.engine = new LandingEngine(rpc, signer, cfg.solana, opts.timing, (line) => log(`${network}: ${line}`));
    this.ctx = {
      network,
      cfg,
      rpc,
      signer,
      programId: this.programId,
      programKey: this.programKey,
      finality: cfg.solana.commitment === "finalized" ? "finalized" : "confirmed",
      engine: this.engine,
      lookupTables: opts.lookupTables ?? null,
      log,
      nowSec: opts.nowSec ?? (() => Math.floor(Date.now() / 1000)),
      noteCost: (lamports) => this.costs.note(lamports),
    };
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
      throw new Error(`networks.${network}: the Solana RPC at ${where} does not answer (${short(e)}); check networks.${network}.rpcUrl`, { cause: e });
    }
    let program;
    try {
      program = await withTimeout(rpc.getAccountInfo(new PublicKey(cfg.programId), s.commitment), s.rpcTimeoutMs, "the RPC");
    } catch (e) {
      throw new Error(`networks.${network}: reading program ${cfg.programId} from the Solana RPC at ${where} failed (${short(e)})`, { cause: e });
    }
    if (!program)
      throw new Error(`networks.${network}: program ${cfg.programId} does not exist on the cluster at ${where}; check networks.${network}.programId`);
    if (!program.executable)
      throw new Error(
        `networks.${network}: account ${cfg.programId} on the cluster at ${where} is not an executable program; check networks.${network}.programId`,
      );
    log(`${network}: solana RPC ${where} (solana-core ${version}, slot ${slot}), pool program ${cfg.programId}, relayer ${signer.address}`);
    const lookupTables = await relayLookupTables(network, cfg, signer, where, log, rpc);
    if (rpc instanceof FailoverRpc) {
      await rpc.probe();
      for (const e of rpc.endpoints())
        log(
          `${network}: rpc ${e.url}: ${e.healthy ? `healthy at slot ${e.slot}` : `unhealthy (${e.lastError ?? "behind"}); requests go to the others until it recovers`}`,
        );
    }
    return new SolanaChain(network, cfg, rpc, signer, hasher, log, { ...opts, lookupTables });
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

  fetchLeafEvents(mint: string, cursor: string | null, limit: number, nextIndex?: number): Promise<LeafEventPage> {
    return fetchLeafEventsPage(this.rpc, { programId: this.programId, mint, treeAddress: poolTreeAddress(this.programId, mint) }, cursor, limit, {
      commitment: this.ctx.finality,
      ...(nextIndex !== undefined ? { nextIndex } : {}),
      treeNextIndex: async () => {
        const tree = await this.treeAccount(mint);
        if (!tree) throw new Error(`${this.network}: the tree account of ${mint} is gone`);
        return tree.nextIndex;
      },
    });
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
    return programAccountExists(this.ctx, poolNullifierAddress(this.programId, mint, nullifierHash));
  }

  /** Finalized: once it is past an attempt's lastValidBlockHeight, every block that could hold the attempt is final, so a spent nullifier read after it shows. */
  blockHeight(): Promise<number | null> {
    return this.rpc.getBlockHeight("finalized");
  }

  async spentBy(mint: string, nullifierHash: Uint8Array): Promise<string | null> {
    const address = poolNullifierAddress(this.programId, mint, nullifierHash);
    if (!(await programAccountExists(this.ctx, address))) return null;
    // The nullifier account's history starts with the withdrawal that created it.
    const history = await this.rpc.getSignaturesForAddress(new PublicKey(address), { limit: 1000 }, this.ctx.finality);
    const created = history.filter((h) => h.err === null).at(-1);
    return created ? created.signature : null;
  }

  async findDeposit(signature: string): Promise<DepositRecord | null> {
    return (await loadDeposit(this.ctx, signature))?.record ?? null;
  }

  // ------------------------------------------------------------------ writes

  submitWithdrawal(w: WithdrawalSubmission, observer?: SubmissionObserver): Promise<SubmitResult> {
    return w.swap ? submitSwapWithdrawal(this.ctx, this.swaps, w, w.swap, observer) : submitPlainWithdrawal(this.ctx, w, observer);
  }

  revertDeposit(r: RevertSubmission): Promise<RevertResult> {
    return revertDeposit(this.ctx, this.hasher, r);
  }

  // ------------------------------------------------------------------ health

  rpcEndpoints(): RpcEndpointStatus[] {
    return this.rpc instanceof FailoverRpc ? this.rpc.endpoints() : [];
  }

  async health(): Promise<HealthCheck[]> {
    return Promise.all([chainCheck(this.ctx, this.where), feePayerCheck(this.ctx, this.costs)]);
  }

  /** The fee payer's balance (metrics and the runway alert). */
  async feePayerLamports(): Promise<bigint> {
    return BigInt(await this.rpc.getBalance(new PublicKey(this.signer.publicKey), this.cfg.solana.commitment));
  }
}
