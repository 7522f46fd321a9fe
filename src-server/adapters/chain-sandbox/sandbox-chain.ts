import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { U64_MAX, withdrawalPublicSignals } from "../../../src-shared/crypto/protocol";
import { verifyEd25519Native as verifyEd25519 } from "../../../src-shared/node/ed25519-native";
import { encodeBase58, parseSignature, publicKeyBytesOrThrow } from "../../../src-shared/encoding/base58";
import { concatBytes } from "../../../src-shared/encoding/bytes";
import { isCanonicalField, isZeroBytes } from "../../../src-shared/encoding/field";
import { sandboxDepositMessage } from "../../../src-shared/messages";
// The codec only (not the index): the index re-exports the web3.js builders, which the sandbox never needs.
import { depositCommitment, encodePoolInstruction } from "../../../src-shared/pool-program/instructions";
import type { Network } from "../../../src-shared/networks";
import { err, ok, type Result } from "../../../src-shared/result";
import { vaultAddress } from "../../../src-shared/solana/pda";
import { FrontierTree, ringFromRoots, ringSlot, rootsFromRing } from "../../core/merkle/frontier";
import { ROOT_HISTORY_SIZE } from "../../core/merkle/tree";
import { pairMemoOf, recordingHasher } from "../../core/merkle/pair-memo";
import { PrecomputedPairs } from "../../core/merkle/precomputed-pairs";
import { revertNullifierOf } from "../../core/revert/nullifier";
import { judgeRevert, type DepositStatus } from "../../core/revert/rules";
import type {
  ChainBackend,
  ChainRejection,
  DepositRecord,
  HealthCheck,
  LeafEventPage,
  RevertResult,
  RevertSubmission,
  SubmitResult,
  TreeAccount,
  SubmissionObserver,
  WithdrawalSubmission,
} from "../../ports/chain";
import type { ProofVerifier } from "../../ports/proof-verifier";
import type { SandboxDepositRequest, SandboxDepositResult, SandboxError, SandboxLedger } from "../../ports/sandbox-ledger";
import type { FrontierLane } from "../frontier-lane/lane";
import type { Signer } from "../../../src-shared/node/keypair-file";
import { SandboxSwapPools, type SwapExecution } from "../swap-sandbox/pools";
import type { DurableDb, SqlStatement } from "../storage-sqljs/durable-db";

/** What a pool's tree account counts (the pool program's TreeAccount fields). */
export interface SandboxPoolTotals {
  /** What deposits brought into the vault, less what reverts returned (issue 25: a revert lowers it). */
  totalDeposited: bigint;
  /** Deposits that reached the vault, reverted ones included (the program counts each deposit once). */
  depositCount: number;
  /** The least a deposit must bring. */
  minDeposit: bigint;
}

/**
 * The embedded chain: a ledger in the relay's own database that plays the pool
 * program's rules (vault, frontier tree with root history, commitments,
 * nullifier accounts) and signs its transactions with the relayer key.
 */
export class SandboxChain implements ChainBackend, SandboxLedger {
  readonly kind = "sandbox" as const;
  get feePayer(): string {
    return this.signer.address;
  }
  private readonly pools = new Map<string, FrontierTree>();
  /**
   * The frontier trees' hasher records the pairs it hashes, so the indexer's
   * full tree, appending the same leaves next, reads them instead of hashing
   * them again (core/merkle/pair-memo.ts). It takes an insert's pairs from the
   * frontier lane's list when they were hashed there (precomputed-pairs.ts).
   */
  private readonly treeHasher: PrecomputedPairs;
  /** Deposits per pool, applied one after another in the order they came (the lane inserts in that order too). */
  private readonly depositTurns = new Map<string, Promise<unknown>>();
  /** Constant-product swap pools for relay_swap; their reserves are ledger balances. */
  readonly swapPools: SandboxSwapPools;
  private slot: number;

  constructor(
    readonly network: Network,
    private readonly db: DurableDb,
    private readonly hasher: FieldHasher,
    private readonly signer: Signer,
    private readonly programId: Uint8Array,
    private readonly verifier: ProofVerifier,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
    /** Hashes deposits' frontier pairs on another thread (adapters/frontier-lane); null hashes them here. */
    private readonly lane: FrontierLane | null = null,
    /**
     * Each pool's minimum deposit, as initialize_pool's minDeposit sets it on
     * chain (config: networks.<n>.sandbox). Default 1: any positive amount.
     */
    private readonly minDeposits: (mint: string) => bigint = () => 1n,
  ) {
    this.slot = 0;
    // Pairs served from a lane's list go into the memo too, as the pairs the recording hasher hashes do.
    const memo = pairMemoOf(hasher);
    this.treeHasher = new PrecomputedPairs(recordingHasher(hasher), (l, r, h) => memo.record(l, r, h));
    this.reloadPools();
    this.swapPools = new SandboxSwapPools(network, db, programId, (owner, mint) => this.balance(owner, mint));
  }

  async listPools(): Promise<string[]> {
    return [...this.pools.keys()];
  }

  /** initialize_pool: idempotent. */
  async initializePool(mint: string): Promise<void> {
    if (this.pools.has(mint)) return;
    const stmts: SqlStatement[] = [];
    this.openPool(mint, stmts);
    await this.commit(stmts, mint);
  }

  async airdrop(wallet: string, mint: string, amount: bigint): Promise<string> {
    const stmts: SqlStatement[] = [];
    const signature = this.transaction(() => `airdrop|${wallet}|${mint}|${amount}`, stmts);
    this.credit(wallet, mint, amount, stmts);
    await this.commit(stmts, mint);
    return signature;
  }

  /** The least a deposit into this pool must bring (base units). */
  minDeposit(mint: string): bigint {
    const min = this.minDeposits(mint);
    return min < 1n ? 1n : min;
  }

  /**
   * The pool's totals as its tree account keeps them: a revert lowers
   * totalDeposited by the amount it returned. Summed from the ledger (a
   * diagnostic read, linear in the pool's deposits).
   */
  poolTotals(mint: string): SandboxPoolTotals {
    let totalDeposited = 0n;
    let depositCount = 0;
    this.db.iterate("SELECT amount, status FROM sandbox_deposits WHERE network = ? AND mint = ?", [this.network, mint], (row) => {
      depositCount++;
      if (row[1] !== "reverted") totalDeposited += BigInt(row[0] as string);
    });
    return { totalDeposited, depositCount, minDeposit: this.minDeposit(mint) };
  }

  balance(wallet: string, mint: string): bigint {
    const row = this.db.get<{ amount: string }>("SELECT amount FROM sandbox_balances WHERE network = ? AND owner = ? AND mint = ?", [
      this.network,
      wallet,
      mint,
    ]);
    return row ? BigInt(row.amount) : 0n;
  }

  /**
   * The deposit instruction (protocol v2). The depositor names a
   * precommitment; the program moves `amount` into the vault and computes the
   * leaf from what it moved, Poseidon(precommitment, amount, mintField), so a
   * note can only ever be withdrawn as what was paid for it. Funds reach the
   * vault either way; a precommitment that is not a usable field element (zero,
   * not below the modulus) or a leaf already in the tree leaves the deposit
   * `failed`, which its depositor can later revert.
   */
  async deposit(req: SandboxDepositRequest): Promise<Result<SandboxDepositResult, SandboxError>> {
    const applied = await this.applyDeposit(req);
    if (!applied.ok) return applied;
    await applied.value.durable;
    return ok(applied.value.result);
  }

  /**
   * {@link deposit} in two steps: the checks and the ledger write happen in
   * one synchronous turn, when the deposit's turn in its pool comes (deposits
   * of a pool apply in the order they came), and `durable` resolves once the
   * write is on disk (it rejects if it never gets there; nothing may be
   * acknowledged before). Whoever follows the chain can read the new event
   * right away, so the relay's indexer appends it while the ledger's fsync is
   * under way, and one group commit of the journal covers both writes.
   *
   * The signature is checked and the leaf computed at once, and the leaf sent
   * to the frontier lane, which hashes its path while earlier deposits apply.
   */
  async applyDeposit(req: SandboxDepositRequest): Promise<Result<{ result: SandboxDepositResult; durable: Promise<void> }, SandboxError>> {
    if (req.amount <= 0n || req.amount > U64_MAX) throw new RangeError(`a deposit amount is a positive u64, got ${req.amount}`);
    // The program refuses it before anything moves (DepositBelowMinimum): flushing the root ring costs 1,000 minimums.
    if (req.amount < this.minDeposit(req.mint)) return err("DepositBelowMinimum");
    const message = sandboxDepositMessage(this.network, req.mint, req.amount, req.precommitment);
    if (!verifyEd25519(message, req.signature, req.walletBytes)) return err("InvalidSignature");
    // The leaf is the program's, from the amount it moves; nothing of the client's but the precommitment.
    const commitment = depositCommitment(this.hasher, req.precommitment, req.amount, req.mint);
    const path = this.lane && commitment && this.pools.has(req.mint) ? this.lane.insert(this.laneKey(req.mint), commitment) : null;
    return this.inTurn(req.mint, async () => this.applyCheckedDeposit(req, commitment, path ? await path : null));
  }

  /** The rest of the deposit instruction, in one synchronous turn: balance, vault, leaf, ledger write. */
  private applyCheckedDeposit(
    req: SandboxDepositRequest,
    commitment: Uint8Array | null,
    pathPairs: Uint8Array | null,
  ): Result<{ result: SandboxDepositResult; durable: Promise<void> }, SandboxError> {
    const walletBalance = this.balance(req.wallet, req.mint);
    if (walletBalance < req.amount) return this.laneMissed(req.mint, pathPairs, err("InsufficientFunds"));

    const stmts: SqlStatement[] = [];
    const tree = this.pools.get(req.mint) ?? this.openPool(req.mint, stmts);
    // The sandbox's deposit nonce is the slot the deposit lands in (unique per network).
    const signature = this.transaction(
      (slot) => encodePoolInstruction({ name: "deposit", precommitment: req.precommitment, amount: req.amount, nonce: BigInt(slot) }),
      stmts,
    );
    this.setBalance(req.wallet, req.mint, walletBalance - req.amount, stmts);
    this.credit(this.vaultOf(req.mint, req.mintBytes), req.mint, req.amount, stmts);

    const insertable =
      commitment !== null &&
      !this.db.get("SELECT 1 AS x FROM sandbox_commitments WHERE network = ? AND mint = ? AND commitment = ?", [this.network, req.mint, commitment]);
    let leafIndex: number | null = null;
    if (insertable) {
      this.treeHasher.load(pathPairs);
      let inserted: ReturnType<FrontierTree["insert"]>;
      let served: number;
      try {
        inserted = tree.insert(commitment);
        served = this.treeHasher.servedCount;
      } finally {
        this.treeHasher.load(null);
      }
      if (!inserted.ok) return this.laneMissed(req.mint, pathPairs, err("TreeFull"));
      leafIndex = inserted.value;
      const state = tree.frontier();
      // The lane's copy is behind or ahead of this tree unless it hashed exactly this insert: send it the tree.
      if (this.lane && served !== tree.depth) this.lane.track(this.laneKey(req.mint), state.nextIndex, state.filledSubtrees);
      stmts.push(
        { sql: "INSERT INTO sandbox_commitments (network, mint, commitment) VALUES (?, ?, ?)", params: [this.network, req.mint, commitment] },
        this.treeWrite(req.mint, tree),
        {
          sql: "INSERT INTO sandbox_leaf_events (network, mint, kind, signature, leaf_index, commitment, depositor, amount, slot) VALUES (?, ?, 'deposit', ?, ?, ?, ?, ?, ?)",
          params: [this.network, req.mint, signature, leafIndex, commitment, req.wallet, req.amount.toString(), this.slot],
        },
      );
    } else if (pathPairs) this.laneMissed(req.mint, pathPairs, null);
    const status = leafIndex === null ? "failed" : "indexed";
    stmts.push({
      sql: "INSERT INTO sandbox_deposits (network, signature, mint, amount, precommitment, commitment, depositor, status, leaf_index, slot, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      params: [this.network, signature, req.mint, req.amount.toString(), req.precommitment, commitment, req.wallet, status, leafIndex, this.slot, this.now()],
    });
    const durable = this.commit(stmts, req.mint);
    return ok({ result: { signature, status, leafIndex, commitment }, durable });
  }

  /** A leaf the lane inserted that this pool's tree did not: the lane's copy is ahead, so it gets the tree again. */
  private laneMissed<T>(mint: string, pathPairs: Uint8Array | null, result: T): T {
    const tree = this.pools.get(mint);
    if (this.lane && pathPairs && tree) {
      const state = tree.frontier();
      this.lane.track(this.laneKey(mint), state.nextIndex, state.filledSubtrees);
    }
    return result;
  }

  private laneKey(mint: string): string {
    return `${this.network}/${mint}`;
  }

  /** Runs `apply` after every deposit of the pool that came before it has applied (or failed). */
  private inTurn<T>(mint: string, apply: () => Promise<T>): Promise<T> {
    const before = this.depositTurns.get(mint) ?? Promise.resolve();
    const mine = before.then(apply);
    const done = mine.then(
      () => {},
      () => {},
    );
    this.depositTurns.set(mint, done);
    void done.then(() => {
      if (this.depositTurns.get(mint) === done) this.depositTurns.delete(mint);
    });
    return mine;
  }

  /** Deposit and change leaves in leaf order: the ledger appends each pool's leaf events as it inserts them. */
  async fetchLeafEvents(mint: string, cursor: string | null, limit: number): Promise<LeafEventPage> {
    const after = cursor === null ? 0 : Number(cursor);
    const rows = this.db.all<{
      id: number;
      kind: "deposit" | "change";
      signature: string;
      leaf_index: number;
      commitment: Uint8Array;
      depositor: string | null;
      amount: string | null;
      nullifier_hash: Uint8Array | null;
      slot: number;
    }>(
      "SELECT id, kind, signature, leaf_index, commitment, depositor, amount, nullifier_hash, slot FROM sandbox_leaf_events WHERE network = ? AND mint = ? AND id > ? ORDER BY id LIMIT ?",
      [this.network, mint, after, limit],
    );
    return {
      events: rows.map((r) => {
        const base = { signature: r.signature, leafIndex: r.leaf_index, commitment: r.commitment, slot: r.slot };
        if (r.kind === "change") {
          if (!r.nullifier_hash) throw new Error(`sandbox change leaf ${r.leaf_index} of ${mint} has no nullifierHash`);
          return { ...base, kind: "change" as const, nullifierHash: r.nullifier_hash };
        }
        if (r.depositor === null || r.amount === null) throw new Error(`sandbox deposit leaf ${r.leaf_index} of ${mint} has no depositor or amount`);
        return { ...base, kind: "deposit" as const, depositor: r.depositor, amount: BigInt(r.amount) };
      }),
      cursor: rows.length ? String(rows[rows.length - 1]!.id) : cursor,
    };
  }

  async treeAccount(mint: string): Promise<TreeAccount | null> {
    const tree = this.pools.get(mint);
    return tree ? { root: tree.root(), nextIndex: tree.nextIndex } : null;
  }

  async isNullifierSpent(mint: string, nullifierHash: Uint8Array): Promise<boolean> {
    return this.nullifierSpentNow(mint, nullifierHash);
  }

  /** The ledger has no expiry: a submission is applied (or not) before submitWithdrawal returns. */
  async blockHeight(): Promise<number | null> {
    return null;
  }

  async spentBy(mint: string, nullifierHash: Uint8Array): Promise<string | null> {
    return (
      this.db.get<{ signature: string }>("SELECT signature FROM sandbox_nullifiers WHERE network = ? AND mint = ? AND nullifier_hash = ?", [
        this.network,
        mint,
        nullifierHash,
      ])?.signature ?? null
    );
  }

  /**
   * The withdraw (or withdraw_swap + assert_swap_out) instructions as the
   * program runs them (protocol v3). An amount of 0, or a change commitment
   * that is zero or not below the field modulus, is refused (InvalidInput)
   * before the proof. The seven public signals are recomputed here from the
   * transaction alone: root, nullifierHash, recipient, amount (the part
   * withdrawn), mint and changeCommitment from the instruction's arguments, and
   * extDataHash from this chain's own signer (the relayer, who receives the
   * fee), the fee argument and, for a swap, the output mint and minOut. A proof
   * made for any other relayer, fee, minimum or change leaf does not verify.
   * Then, in one atomic step: the root history, the nullifier account, the
   * vault; the recipient is paid exactly amount − fee (or, swapped, at least
   * minOut of the output mint from the swap itself, else nothing happens at
   * all) and the relayer exactly fee; the nullifier account is created; and
   * the change commitment is inserted as the pool's next leaf (a duplicate
   * too: change leaves have no marker), which advances the root history.
   *
   * The change leaf goes through the deposits' path: sent to the frontier
   * lane first, then inserted in the pool's turn, in order with deposits.
   */
  async submitWithdrawal(w: WithdrawalSubmission, observer?: SubmissionObserver): Promise<SubmitResult> {
    if (w.depositSize <= 0n || w.depositSize > U64_MAX) {
      return { ok: false, rejection: "Failed", detail: `InvalidInput: amount ${w.depositSize} is not a positive u64` };
    }
    if (w.changeCommitment.length !== 32 || isZeroBytes(w.changeCommitment) || !isCanonicalField(w.changeCommitment)) {
      return { ok: false, rejection: "Failed", detail: "InvalidInput: changeCommitment must be 32 bytes, non-zero and below the field modulus" };
    }
    if (w.fee < 0n || w.fee > w.depositSize)
      return { ok: false, rejection: "Failed", detail: `FeeExceedsAmount: fee ${w.fee} is not within 0..${w.depositSize}` };
    if (w.swap && (w.swap.minOut < 0n || w.swap.minOut > U64_MAX)) return { ok: false, rejection: "Failed", detail: `minOut ${w.swap.minOut} is not a u64` };
    const recipient = publicKeyBytesOrThrow(w.recipient);
    const swapTerms = w.swap ? { outputMint: publicKeyBytesOrThrow(w.swap.outputMint), minOut: w.swap.minOut } : null;
    const publicSignals = withdrawalPublicSignals(this.hasher, {
      root: w.root,
      nullifierHash: w.nullifierHash,
      recipient,
      amount: w.depositSize,
      mint: w.mintBytes,
      terms: { relayer: this.signer.publicKey, fee: w.fee, swap: swapTerms },
      changeCommitment: w.changeCommitment,
    });
    if (!(await this.verifier.verify(w.proof, publicSignals))) {
      return {
        ok: false,
        rejection: "InvalidProof",
        detail: "the program's verifier refused the proof for this transaction's signer, fee, terms and change commitment",
      };
    }
    const path = this.lane && this.pools.has(w.mint) ? this.lane.insert(this.laneKey(w.mint), w.changeCommitment) : null;
    const applied = await this.inTurn(w.mint, async () => this.applyVerifiedWithdrawal(w, recipient, swapTerms, path ? await path : null));
    if (!applied.ok) return applied;
    // Readable by the relay's indexer from now on: its append of the change leaf joins this write's journal flush.
    observer?.applied?.();
    await applied.durable;
    return applied.result;
  }

  /** The rest of the withdrawal, in one synchronous turn, so concurrent withdrawals and deposits cannot interleave. */
  private applyVerifiedWithdrawal(
    w: WithdrawalSubmission,
    recipient: Uint8Array,
    swapTerms: { outputMint: Uint8Array; minOut: bigint } | null,
    pathPairs: Uint8Array | null,
  ): { ok: true; result: SubmitResult; durable: Promise<void> } | { ok: false; rejection: ChainRejection; detail: string; outAmount?: bigint } {
    const refuse = (rejection: ChainRejection, detail: string, outAmount?: bigint) =>
      this.laneMissed(w.mint, pathPairs, { ok: false as const, rejection, detail, ...(outAmount !== undefined ? { outAmount } : {}) });
    const tree = this.pools.get(w.mint);
    if (!tree || !tree.isKnownRoot(w.root)) return refuse("InvalidRoot", "root is not in the pool's recent roots");
    if (this.nullifierSpentNow(w.mint, w.nullifierHash)) return refuse("NullifierAlreadySpent", "nullifier account exists");
    const vault = this.vaultOf(w.mint, w.mintBytes);
    if (this.balance(vault, w.mint) < w.depositSize) return refuse("Failed", "vault balance is below the withdrawal");
    const toRecipient = w.depositSize - w.fee;
    let swapped: (SwapExecution & { outputMint: string }) | null = null;
    if (w.swap) {
      // The swap's own output is what the recipient gets (the escrow's whole balance): below minOut the whole transaction fails.
      const executed = this.swapPools.execute(w.mint, w.swap.outputMint, toRecipient, w.swap.minOut);
      if (!executed.ok) {
        const e = executed.error;
        return refuse(e.rejection, e.detail, e.rejection === "SlippageExceeded" ? e.outAmount : undefined);
      }
      swapped = { ...executed.value, outputMint: w.swap.outputMint };
    }

    // After paying out, the change leaf: the last step that can refuse (TreeFull), so nothing is written before it.
    this.treeHasher.load(pathPairs);
    let inserted: ReturnType<FrontierTree["insert"]>;
    let served: number;
    try {
      inserted = tree.insert(w.changeCommitment);
      served = this.treeHasher.servedCount;
    } finally {
      this.treeHasher.load(null);
    }
    if (!inserted.ok) return refuse("Failed", "TreeFull: the pool's tree has no room for the change leaf");
    const changeLeafIndex = inserted.value;
    const state = tree.frontier();
    if (this.lane && served !== tree.depth) this.lane.track(this.laneKey(w.mint), state.nextIndex, state.filledSubtrees);

    const stmts: SqlStatement[] = [];
    const args = {
      proof: w.proof,
      root: w.root,
      nullifierHash: w.nullifierHash,
      recipient,
      amount: w.depositSize,
      fee: w.fee,
      changeCommitment: w.changeCommitment,
    };
    const leg = swapped; // a const, so the closure below keeps its narrowing
    const signature = this.transaction(
      () =>
        leg && swapTerms
          ? concatBytes(
              encodePoolInstruction({ name: "withdraw_swap", ...args, ...swapTerms }),
              encodePoolInstruction({ name: "assert_swap_out", minOut: swapTerms.minOut, nullifierHash: w.nullifierHash }),
            )
          : encodePoolInstruction({ name: "withdraw", ...args }),
      stmts,
    );
    this.debit(vault, w.mint, w.depositSize, stmts);
    if (leg) {
      // vault -> pool (input mint), pool -> recipient (output mint); the fee never enters the pool.
      this.credit(leg.ammKey, w.mint, toRecipient, stmts);
      this.debit(leg.ammKey, leg.outputMint, leg.swap.amountOut, stmts);
      this.credit(w.recipient, leg.outputMint, leg.swap.amountOut, stmts);
    } else {
      this.credit(w.recipient, w.mint, toRecipient, stmts);
    }
    if (w.fee > 0n) this.credit(this.signer.address, w.mint, w.fee, stmts);
    stmts.push(
      {
        sql: "INSERT INTO sandbox_nullifiers (network, mint, nullifier_hash, kind, signature, slot) VALUES (?, ?, ?, 'withdraw', ?, ?)",
        params: [this.network, w.mint, w.nullifierHash, signature, this.slot],
      },
      this.treeWrite(w.mint, tree),
      {
        sql: "INSERT INTO sandbox_leaf_events (network, mint, kind, signature, leaf_index, commitment, nullifier_hash, slot) VALUES (?, ?, 'change', ?, ?, ?, ?, ?)",
        params: [this.network, w.mint, signature, changeLeafIndex, w.changeCommitment, w.nullifierHash, this.slot],
      },
    );
    const durable = this.commit(stmts, w.mint);
    const result: SubmitResult = leg ? { ok: true, signature, changeLeafIndex, outAmount: leg.swap.amountOut } : { ok: true, signature, changeLeafIndex };
    return { ok: true, result, durable };
  }

  async findDeposit(signature: string): Promise<DepositRecord | null> {
    return this.depositNow(signature);
  }

  /**
   * The revert instruction. Every check and the write run in one synchronous
   * turn (DurableDb applies a batch before it yields), so of two racing
   * reverts exactly one pays out; the other finds the revert-nullifier spent.
   */
  async revertDeposit(r: RevertSubmission): Promise<RevertResult> {
    const d = this.depositNow(r.depositSignature);
    if (!d) return { ok: false, rejection: "DepositNotFound", detail: "no deposit with this signature" };
    const sigBytes = parseSignature(d.signature);
    if (!sigBytes.ok) throw new Error(`sandbox deposit ${d.signature} has no 64-byte signature`);
    const nullifier = revertNullifierOf(this.hasher, sigBytes.value);
    const verdict = judgeRevert(d, r.depositor, this.nullifierSpentNow(d.mint, nullifier), this.now(), { pendingRevertAfterSec: 0 });
    if (!verdict.ok) return { ok: false, rejection: verdict.error.error, detail: verdict.error.detail };
    const mintBytes = publicKeyBytesOrThrow(d.mint);
    const vault = vaultAddress(this.programId, mintBytes);
    if (this.balance(vault, d.mint) < d.amount) return { ok: false, rejection: "Failed", detail: "vault balance is below the deposit" };

    const stmts: SqlStatement[] = [];
    const nonce = BigInt(this.depositSlot(d.signature));
    const signature = this.transaction(() => encodePoolInstruction({ name: "revert", nonce }), stmts);
    this.debit(vault, d.mint, d.amount, stmts);
    this.credit(d.depositor, d.mint, d.amount, stmts);
    stmts.push(
      {
        sql: "INSERT INTO sandbox_nullifiers (network, mint, nullifier_hash, kind, signature, slot) VALUES (?, ?, ?, 'revert', ?, ?)",
        params: [this.network, d.mint, nullifier, signature, this.slot],
      },
      { sql: "UPDATE sandbox_deposits SET status = 'reverted' WHERE network = ? AND signature = ?", params: [this.network, d.signature] },
    );
    await this.commit(stmts, d.mint);
    return { ok: true, signature, amount: d.amount, mint: d.mint };
  }

  /** The pool vault's address: a program-derived address, costly to search for, so kept per mint. */
  private readonly vaults = new Map<string, string>();
  private vaultOf(mint: string, mintBytes: Uint8Array): string {
    let vault = this.vaults.get(mint);
    if (vault === undefined) this.vaults.set(mint, (vault = vaultAddress(this.programId, mintBytes)));
    return vault;
  }

  private depositNow(signature: string): DepositRecord | null {
    const row = this.db.get<{ signature: string; mint: string; amount: string; depositor: string; status: DepositStatus; created_at: number }>(
      "SELECT signature, mint, amount, depositor, status, created_at FROM sandbox_deposits WHERE network = ? AND signature = ?",
      [this.network, signature],
    );
    return row
      ? { signature: row.signature, mint: row.mint, amount: BigInt(row.amount), depositor: row.depositor, status: row.status, createdAt: row.created_at }
      : null;
  }

  /** The slot a deposit landed in: the sandbox's deposit nonce. */
  private depositSlot(signature: string): number {
    const row = this.db.get<{ slot: number }>("SELECT slot FROM sandbox_deposits WHERE network = ? AND signature = ?", [this.network, signature]);
    if (!row) throw new Error(`sandbox deposit ${signature} has no slot`);
    return row.slot;
  }

  private nullifierSpentNow(mint: string, nullifierHash: Uint8Array): boolean {
    return !!this.db.get("SELECT 1 AS x FROM sandbox_nullifiers WHERE network = ? AND mint = ? AND nullifier_hash = ?", [this.network, mint, nullifierHash]);
  }

  async health(): Promise<HealthCheck[]> {
    return [{ name: `chain:${this.network}`, ok: true, detail: `sandbox ledger at slot ${this.slot}, ${this.pools.size} pools` }];
  }

  /** A failed write must not leave the in-memory program state ahead of the ledger. */
  private async commit(stmts: SqlStatement[], mint: string): Promise<void> {
    try {
      await this.db.write(stmts);
    } catch (e) {
      this.pools.delete(mint);
      this.reloadPools();
      throw e;
    }
  }

  private reloadPools(): void {
    const rows = this.db.all<{ mint: string; next_index: number; filled_subtrees: Uint8Array; roots: Uint8Array }>(
      "SELECT mint, next_index, filled_subtrees, roots FROM sandbox_pools WHERE network = ?",
      [this.network],
    );
    for (const r of rows) {
      // The ring (issue 25), or the oldest-first list of up to 100 roots written before it: rewritten as a ring by the next insert.
      const ring = r.roots.length === ROOT_HISTORY_SIZE * 32;
      if (ring) this.listedRoots.delete(r.mint);
      else this.listedRoots.add(r.mint);
      const roots = ring ? rootsFromRing(r.roots, r.next_index) : r.roots;
      this.pools.set(r.mint, new FrontierTree(this.treeHasher, { nextIndex: r.next_index, filledSubtrees: r.filled_subtrees, roots }));
      this.lane?.track(this.laneKey(r.mint), r.next_index, r.filled_subtrees);
    }
    this.slot = this.db.get<{ slot: number }>("SELECT slot FROM sandbox_meta WHERE network = ?", [this.network])?.slot ?? 0;
  }

  private openPool(mint: string, stmts: SqlStatement[]): FrontierTree {
    const tree = new FrontierTree(this.treeHasher);
    const state = tree.frontier();
    this.pools.set(mint, tree);
    this.listedRoots.delete(mint);
    this.lane?.track(this.laneKey(mint), state.nextIndex, state.filledSubtrees);
    stmts.push({
      sql: "INSERT INTO sandbox_pools (network, mint, next_index, filled_subtrees, roots, created_slot) VALUES (?, ?, 0, ?, ?, ?)",
      params: [this.network, mint, state.filledSubtrees, new Uint8Array(ROOT_HISTORY_SIZE * 32), this.slot],
    });
    return tree;
  }

  /**
   * Pools whose stored roots are still the oldest-first list written before
   * the ring: their next insert stores the whole ring, every later one a slot.
   */
  private readonly listedRoots = new Set<string>();

  /**
   * The pool row after an insert: the frontier, and the new root in its ring
   * slot (32 bytes in the journal, where the whole list took 32 KB per insert).
   */
  private treeWrite(mint: string, tree: FrontierTree): SqlStatement {
    const { nextIndex, filledSubtrees } = tree.frontier();
    if (this.listedRoots.has(mint)) {
      // A failed write reloads the pools, which marks the pool again: the next insert retries the whole ring.
      this.listedRoots.delete(mint);
      return {
        sql: "UPDATE sandbox_pools SET next_index = ?, filled_subtrees = ?, roots = ? WHERE network = ? AND mint = ?",
        params: [nextIndex, filledSubtrees, ringFromRoots(tree.state().roots, nextIndex), this.network, mint],
      };
    }
    const at = ringSlot(nextIndex) * 32;
    return {
      // substr and || on blobs give text of the same bytes; CAST makes it a blob again.
      sql: "UPDATE sandbox_pools SET next_index = ?, filled_subtrees = ?, roots = CAST(substr(roots, 1, ?) || ? || substr(roots, ?) AS BLOB) WHERE network = ? AND mint = ?",
      params: [nextIndex, filledSubtrees, at, tree.root(), at + 33, this.network, mint],
    };
  }

  /**
   * Advances the slot and signs `sandbox-tx|<network>|<slot>|` followed by the
   * instruction's data as the pool program encodes it (src-shared/pool-program;
   * an airdrop, which the program does not model, signs a text). The signature
   * is the transaction id; the slot prefix keeps it unique.
   */
  private transaction(instruction: (slot: number) => Uint8Array | string, stmts: SqlStatement[]): string {
    const slot = this.slot + 1;
    const body = instruction(slot);
    this.slot = slot;
    stmts.push({
      sql: "INSERT INTO sandbox_meta (network, slot) VALUES (?, ?) ON CONFLICT (network) DO UPDATE SET slot = excluded.slot",
      params: [this.network, this.slot],
    });
    const prefix = textEncoder.encode(`sandbox-tx|${this.network}|${slot}|`);
    const data = typeof body === "string" ? textEncoder.encode(body) : body;
    const message = new Uint8Array(prefix.length + data.length);
    message.set(prefix);
    message.set(data, prefix.length);
    return encodeBase58(this.signer.sign(message));
  }

  private credit(owner: string, mint: string, amount: bigint, stmts: SqlStatement[]): void {
    this.setBalance(owner, mint, this.balanceWithPending(owner, mint, stmts) + amount, stmts);
  }

  private debit(owner: string, mint: string, amount: bigint, stmts: SqlStatement[]): void {
    this.setBalance(owner, mint, this.balanceWithPending(owner, mint, stmts) - amount, stmts);
  }

  /** Balances are read before the batch applies; track writes queued in this batch. */
  private readonly pending = new WeakMap<SqlStatement[], Map<string, bigint>>();

  private balanceWithPending(owner: string, mint: string, stmts: SqlStatement[]): bigint {
    return this.pending.get(stmts)?.get(`${owner}|${mint}`) ?? this.balance(owner, mint);
  }

  private setBalance(owner: string, mint: string, amount: bigint, stmts: SqlStatement[]): void {
    let m = this.pending.get(stmts);
    if (!m) this.pending.set(stmts, (m = new Map()));
    m.set(`${owner}|${mint}`, amount);
    stmts.push({
      sql: "INSERT INTO sandbox_balances (network, owner, mint, amount) VALUES (?, ?, ?, ?) ON CONFLICT (network, owner, mint) DO UPDATE SET amount = excluded.amount",
      params: [this.network, owner, mint, amount.toString()],
    });
  }
}

const textEncoder = new TextEncoder();
