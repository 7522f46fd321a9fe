/**
 * The pool program (docs/pool-program.md) in TypeScript: the same rules the
 * embedded sandbox plays (src-server/adapters/chain-sandbox), on Solana
 * accounts. Bytes go through the shared codec (src-shared/pool-program), the
 * tree through the pure core's FrontierTree with the TreeAccount's bytes as
 * the only state (load, insert, write back), public inputs through
 * core/proof/public-inputs, revert rules through core/revert/rules, and the
 * Groth16 check through the injected ProofVerifier.
 *
 * Failures are what an Anchor program reports: the pool's own errors as
 * `{ Custom: 6000 + n }` with `Program log: Error: <Name>`, account
 * constraints as Anchor's framework errors (ConstraintSeeds 2006, …), and the
 * system and token programs' errors from their CPIs.
 *
 * Protocol v2 (DESIGN §8): a deposit names a precommitment and the program
 * computes the leaf Poseidon(precommitment, amount, mintField) from the amount
 * that reached its vault; a withdrawal's six public signals are recomputed
 * from the transaction, extDataHash from its signer (the relayer), its fee and,
 * for withdraw_swap, its outputMint and minOut; withdraw_swap reads the
 * Instructions sysvar to require its one assert_swap_out.
 *
 * Duplicate leaves are detected with a commitment marker: an empty account
 * owned by the program at PDA ["commitment", mint, commitment], created when
 * the leaf is inserted (deposit's last account, docs/pool-program.md).
 */
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { computeLeaf } from "../../src-shared/crypto/protocol";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { bytesEqual } from "../../src-shared/encoding/bytes";
import { isCanonicalField, isZeroBytes } from "../../src-shared/encoding/field";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  DEPOSIT_RECEIPT_SIZE,
  INSTRUCTION_DISCRIMINATORS,
  NO_LEAF_INDEX,
  NULLIFIER_ACCOUNT_SIZE,
  POOL_ERRORS,
  POOL_ERROR_MESSAGES,
  POOL_INSTRUCTION_ACCOUNT_FLAGS,
  ROOT_HISTORY_SIZE,
  SYSTEM_PROGRAM_ID,
  SYSVAR_INSTRUCTIONS_ID,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM_ID,
  TREE_ACCOUNT_SIZE,
  TREE_DEPTH,
  associatedTokenAddress,
  commitmentMarkerAddress,
  decodeDepositReceipt,
  decodePoolInstruction,
  decodeTreeAccount,
  encodeDepositReceipt,
  encodeNullifierAccount,
  encodePoolEventLog,
  encodeTreeAccount,
  findDepositReceiptAddress,
  findTreeAddress,
  isKnownRoot,
  namePoolAccounts,
  poolErrorLogLine,
  poolNullifierAddress,
  poolVaultAddress,
  publicKeyBytes,
  pushRoot,
  revertMarkerAddress,
  revertNullifierOfReceipt,
  rootsOldestFirst,
  type AccountFlags,
  type DepositFailedReason,
  type DepositReceiptData,
  type PoolErrorName,
  type PoolEvent,
  type PoolInstruction,
  type PoolInstructionName,
  type TreeAccountData,
  type WithdrawSwapInstruction,
  type WithdrawInstruction,
} from "../../src-shared/pool-program";
import { FrontierTree } from "../../src-server/core/merkle/frontier";
import { withdrawalPublicSignals } from "../../src-server/core/proof/public-inputs";
import { judgeRevert } from "../../src-server/core/revert/rules";
import type { ProofVerifier } from "../../src-server/ports/proof-verifier";
import { decodeInstructionsSysvar } from "../runtime/instructions-sysvar";
import { ProgramError, type CompiledInstruction, type ExecContext, type InstructionAccount, type Program } from "../runtime/types";
import { createAssociatedTokenAccountCpi } from "./associated-token";
import { anchorError, builtinError, load, writeData } from "./runtime-helpers";
import { decodeMint } from "../ledger/token";
import { initializeTokenAccount, loadTokenAccount, transferTokensCpi, type LoadedTokenAccount } from "./spl-token";
import { createRentExemptAccount } from "./system";

/**
 * Compute units the program charges, close to what an sBPF build would burn,
 * so simulation-based limits mean something. A Poseidon of two inputs is the
 * syscall's price (61·n² + 542); proof verification is the alt_bn128 syscalls
 * of a 6-input Groth16 check (4-pair pairing 84 848, six G1 mul+add ≈ 25 200,
 * field checks and the proof's decoding)
 * plus the program's own work. CPIs add their programs' units.
 */
export const POOL_UNITS = {
  initializePool: 22_000,
  depositBase: 26_000,
  poseidon: 786,
  withdrawBase: 38_000,
  proofVerification: 134_000,
  revertBase: 16_000,
  assertSwapOut: 1_800,
  /** Reading the Instructions sysvar: a few instruction loads and compares. */
  swapAssertionCheck: 2_500,
} as const;

export interface PoolProgramOptions {
  programId: string;
  hasher: FieldHasher;
  verifier: ProofVerifier;
}

const PASCAL: Record<PoolInstructionName, string> = {
  initialize_pool: "InitializePool",
  deposit: "Deposit",
  withdraw: "Withdraw",
  withdraw_swap: "WithdrawSwap",
  assert_swap_out: "AssertSwapOut",
  revert: "Revert",
};

/** The largest nextIndex: the receipt's "no leaf" marker 0xFFFFFFFF is never a leaf (docs/pool-program.md). */
const MAX_LEAVES = NO_LEAF_INDEX;
const U64_MAX = (1n << 64n) - 1n;

export class PoolProgram implements Program {
  readonly id: string;
  readonly baseUnits = POOL_UNITS.depositBase;
  private readonly hasher: FieldHasher;
  private readonly verifier: ProofVerifier;
  private empty: { filledSubtrees: Uint8Array[]; root: Uint8Array } | null = null;

  constructor(opts: PoolProgramOptions) {
    this.id = opts.programId;
    this.hasher = opts.hasher;
    this.verifier = opts.verifier;
  }

  async execute(ix: CompiledInstruction, ctx: ExecContext): Promise<void> {
    const decoded = decodePoolInstruction(ix.data);
    if (!decoded.ok) {
      const unknown = decoded.error.includes("discriminator");
      throw anchorError(ctx, unknown ? "InstructionFallbackNotFound" : "InstructionDidNotDeserialize", undefined, decoded.error);
    }
    const p = decoded.value;
    ctx.log(`Program log: Instruction: ${PASCAL[p.name]}`);
    switch (p.name) {
      case "initialize_pool":
        return this.initializePool(ix, ctx);
      case "deposit":
        return this.deposit(ix, ctx, p);
      case "withdraw":
      case "withdraw_swap":
        return this.withdraw(ix, ctx, p);
      case "assert_swap_out":
        return this.assertSwapOut(ix, ctx, p.requiredBalance);
      case "revert":
        return this.revert(ix, ctx, p.nonce);
    }
  }

  // ------------------------------------------------------------ initialize_pool

  private initializePool(ix: CompiledInstruction, ctx: ExecContext): void {
    const a = this.accounts(ctx, "initialize_pool", ix.accounts).named;
    this.programAccount(ctx, a.tokenProgram, TOKEN_PROGRAM_ID, "token_program");
    this.programAccount(ctx, a.systemProgram, SYSTEM_PROGRAM_ID, "system_program");
    const mint = a.mint.address;
    const [treeAddress, bump] = findTreeAddress(this.id, mint);
    this.seeds(ctx, a.tree, treeAddress, "tree");
    this.seeds(ctx, a.vault, poolVaultAddress(this.id, mint), "vault");
    // A mint the validator never created is accepted (tests fund token accounts of bare mint addresses); anything else must be a mint.
    const mintAccount = load(ctx, mint);
    if (mintAccount) {
      if (mintAccount.owner !== TOKEN_PROGRAM_ID) throw anchorError(ctx, "AccountOwnedByWrongProgram", "mint");
      if (!decodeMint(mintAccount.data)) throw anchorError(ctx, "AccountDidNotDeserialize", "mint");
    }
    ctx.consumeUnits(POOL_UNITS.initializePool);

    // `init` of the tree: fails with the system program's AccountAlreadyInUse when it exists.
    createRentExemptAccount(ctx, { payer: a.authority, to: a.tree, space: TREE_ACCOUNT_SIZE, owner: this.id });
    const empty = this.emptyTree();
    const roots = Array.from({ length: ROOT_HISTORY_SIZE }, (_, i) => (i === 0 ? empty.root.slice() : new Uint8Array(32)));
    const tree: TreeAccountData = {
      mint: publicKeyBytes(mint),
      authority: publicKeyBytes(a.authority.address),
      nextIndex: 0,
      currentRootIndex: 0,
      roots,
      filledSubtrees: empty.filledSubtrees.map((n) => n.slice()),
      depositCount: 0n,
      totalDeposited: 0n,
      totalWithdrawn: 0n,
      createdSlot: BigInt(ctx.slot),
      bump,
    };
    writeData(ctx, a.tree, encodeTreeAccount(tree));
    // The vault: a token account at its PDA whose token owner is itself, so the program signs for it with its seeds.
    createRentExemptAccount(ctx, { payer: a.authority, to: a.vault, space: TOKEN_ACCOUNT_SIZE, owner: TOKEN_PROGRAM_ID });
    initializeTokenAccount(ctx, a.vault, mint, a.vault.address);
  }

  // -------------------------------------------------------------------- deposit

  private deposit(ix: CompiledInstruction, ctx: ExecContext, p: Extract<PoolInstruction, { name: "deposit" }>): void {
    const a = this.accounts(ctx, "deposit", ix.accounts).named;
    const marker = a.commitmentMarker;
    this.programAccount(ctx, a.tokenProgram, TOKEN_PROGRAM_ID, "token_program");
    this.programAccount(ctx, a.systemProgram, SYSTEM_PROGRAM_ID, "system_program");
    const mint = a.mint.address;
    const depositor = a.depositor.address;
    let tree = this.loadTree(ctx, a.tree, mint);
    const vaultBefore = this.vault(ctx, a.vault, mint).amount;
    this.tokenAccount(ctx, a.depositorTokenAccount, "depositor_token_account", mint, depositor);
    const [receiptAddress, receiptBump] = findDepositReceiptAddress(this.id, mint, depositor, p.nonce);
    this.seeds(ctx, a.receipt, receiptAddress, "receipt");
    ctx.consumeUnits(POOL_UNITS.depositBase);
    // `init` of the receipt: a nonce used twice fails with the system program's AccountAlreadyInUse.
    createRentExemptAccount(ctx, { payer: a.depositor, to: a.receipt, space: DEPOSIT_RECEIPT_SIZE, owner: this.id });

    transferTokensCpi(ctx, { source: a.depositorTokenAccount, destination: a.vault, authority: a.depositor, amount: p.amount });
    // The leaf is computed from what the vault actually received, never from a value the depositor chose.
    const received = this.vault(ctx, a.vault, mint).amount - vaultBefore;

    // Funds reach the vault either way; a precommitment that cannot make a leaf, or a leaf already in the tree, leaves the deposit failed (revertable).
    let failure: DepositFailedReason | null = isZeroBytes(p.precommitment) ? "zero" : !isCanonicalField(p.precommitment) ? "notAFieldElement" : null;
    let commitment: Uint8Array | null = null;
    if (failure === null) {
      ctx.consumeUnits(2 * POOL_UNITS.poseidon);
      commitment = computeLeaf(this.hasher, p.precommitment, received, publicKeyBytes(mint));
      this.seeds(ctx, marker, commitmentMarkerAddress(this.id, mint, commitment), "commitment_marker");
      if (this.owns(ctx, marker.address)) failure = "duplicate";
    }
    let leafIndex: number | null = null;
    if (failure === null && commitment !== null) {
      if (tree.nextIndex >= MAX_LEAVES) throw this.poolError(ctx, "TreeFull");
      ctx.consumeUnits(TREE_DEPTH * POOL_UNITS.poseidon);
      const frontier = new FrontierTree(this.hasher, { nextIndex: tree.nextIndex, filledSubtrees: concat(tree.filledSubtrees), roots: rootsOldestFirst(tree) }, TREE_DEPTH);
      const inserted = frontier.insert(commitment);
      if (!inserted.ok) throw this.poolError(ctx, "TreeFull");
      leafIndex = inserted.value;
      const state = frontier.state();
      tree = pushRoot({ ...tree, nextIndex: state.nextIndex, filledSubtrees: split(state.filledSubtrees) }, frontier.root());
      createRentExemptAccount(ctx, { payer: a.depositor, to: marker, space: 0, owner: this.id });
    }
    const totalDeposited = tree.totalDeposited + received;
    if (totalDeposited > U64_MAX) throw builtinError("ArithmeticOverflow", "totalDeposited overflows u64");
    tree = { ...tree, depositCount: tree.depositCount + 1n, totalDeposited };
    writeData(ctx, a.tree, encodeTreeAccount(tree));

    const leaf = commitment ?? new Uint8Array(32);
    const receipt: DepositReceiptData = {
      mint: publicKeyBytes(mint),
      depositor: publicKeyBytes(depositor),
      commitment: leaf,
      amount: received,
      nonce: p.nonce,
      status: leafIndex === null ? "failed" : "indexed",
      leafIndex,
      createdAt: BigInt(ctx.unixTime),
      bump: receiptBump,
    };
    writeData(ctx, a.receipt, encodeDepositReceipt(receipt));

    const base = { commitment: leaf, depositor: publicKeyBytes(depositor), amount: received, slot: BigInt(ctx.slot), nonce: p.nonce };
    this.emit(
      ctx,
      leafIndex === null ? { name: "DepositFailedEvent", precommitment: p.precommitment, ...base, reason: failure! } : { name: "DepositEvent", leafIndex, ...base },
    );
  }

  // ------------------------------------------------------- withdraw, withdraw_swap

  private async withdraw(ix: CompiledInstruction, ctx: ExecContext, p: WithdrawInstruction | WithdrawSwapInstruction): Promise<void> {
    const a = this.accounts(ctx, p.name, ix.accounts).named;
    this.programAccount(ctx, a.tokenProgram, TOKEN_PROGRAM_ID, "token_program");
    this.programAccount(ctx, a.associatedTokenProgram, ASSOCIATED_TOKEN_PROGRAM_ID, "associated_token_program");
    this.programAccount(ctx, a.systemProgram, SYSTEM_PROGRAM_ID, "system_program");
    const mint = a.mint.address;
    const relayer = a.relayer.address;
    const recipient = encodeBase58(p.recipient);
    this.loadTree(ctx, a.tree, mint);
    this.vault(ctx, a.vault, mint);
    this.seeds(ctx, a.nullifier, poolNullifierAddress(this.id, mint, p.nullifierHash), "nullifier");
    if (a.recipient.address !== recipient) throw anchorError(ctx, "ConstraintAddress", "recipient");
    if (a.recipientTokenAccount.address !== associatedTokenAddress(recipient, mint)) throw anchorError(ctx, "ConstraintAssociated", "recipient_token_account");
    // Every token account that receives funds is the right owner's, of the right mint.
    if (!load(ctx, a.relayerTokenAccount.address)) throw anchorError(ctx, "AccountNotInitialized", "relayer_token_account");
    this.receivingTokenAccount(ctx, a.relayerTokenAccount, mint, relayer);
    let swap: { outputMint: string; recipientOutput: InstructionAccount; balanceBefore: bigint; sysvar: InstructionAccount } | null = null;
    if (p.name === "withdraw_swap") {
      const s = this.accounts(ctx, "withdraw_swap", ix.accounts).named;
      const outputMint = encodeBase58(p.outputMint);
      if (s.outputMint.address !== outputMint) throw anchorError(ctx, "ConstraintAddress", "output_mint");
      if (s.relayerOutputTokenAccount.address !== associatedTokenAddress(relayer, outputMint)) throw anchorError(ctx, "ConstraintAssociated", "relayer_output_token_account");
      if (s.recipientOutputTokenAccount.address !== associatedTokenAddress(recipient, outputMint)) {
        throw anchorError(ctx, "ConstraintAssociated", "recipient_output_token_account");
      }
      if (s.instructionsSysvar.address !== SYSVAR_INSTRUCTIONS_ID) throw anchorError(ctx, "ConstraintAddress", "instructions_sysvar");
      const existing = this.receivingTokenAccount(ctx, s.recipientOutputTokenAccount, outputMint, recipient);
      swap = { outputMint, recipientOutput: s.recipientOutputTokenAccount, balanceBefore: existing?.amount ?? 0n, sysvar: s.instructionsSysvar };
    } else {
      this.receivingTokenAccount(ctx, a.recipientTokenAccount, mint, recipient);
    }
    ctx.consumeUnits(POOL_UNITS.withdrawBase);

    // Cheap checks first, then the proof: the fee, the root history, the nullifier account, a swap's assertion.
    if (p.fee > p.amount) throw this.poolError(ctx, "FeeExceedsAmount");
    const stateChecks = (): TreeAccountData => {
      const tree = this.loadTree(ctx, a.tree, mint);
      if (!isKnownRoot(tree, p.root)) throw this.poolError(ctx, "UnknownRoot");
      if (this.owns(ctx, a.nullifier.address)) throw this.poolError(ctx, "NullifierSpent");
      return tree;
    };
    stateChecks();
    if (p.name === "withdraw_swap" && swap) this.checkSwapAssertion(ctx, swap.sysvar, swap.recipientOutput.address, swap.balanceBefore + p.minOut);

    // The six public inputs are recomputed from the transaction exactly as the relay does: extDataHash from the
    // signer (the relayer, who receives the fee), the fee argument and a swap's outputMint and minOut. Nothing the client computed is trusted.
    ctx.consumeUnits(POOL_UNITS.proofVerification + 5 * POOL_UNITS.poseidon);
    const signals = withdrawalPublicSignals(this.hasher, {
      root: p.root,
      nullifierHash: p.nullifierHash,
      recipient: p.recipient,
      amount: p.amount,
      mint: publicKeyBytes(mint),
      terms: { relayer: publicKeyBytes(relayer), fee: p.fee, swap: p.name === "withdraw_swap" ? { outputMint: p.outputMint, minOut: p.minOut } : null },
    });
    let valid: boolean;
    try {
      valid = await this.verifier.verify(p.proof, signals);
    } catch (e) {
      throw new ProgramError("ProgramFailedToComplete", `the proof verifier failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!valid) throw this.poolError(ctx, "InvalidProof");

    // Verification awaited: read the state again, and from here on nothing yields.
    let tree = stateChecks();
    const vault = this.vault(ctx, a.vault, mint);
    if (vault.amount < p.amount) throw this.poolError(ctx, "InsufficientVault");

    createRentExemptAccount(ctx, { payer: a.relayer, to: a.nullifier, space: NULLIFIER_ACCOUNT_SIZE, owner: this.id });
    writeData(ctx, a.nullifier, encodeNullifierAccount({ mint: publicKeyBytes(mint), nullifierHash: p.nullifierHash, kind: "withdraw", slot: BigInt(ctx.slot) }));

    const fromVault = { source: a.vault, authority: a.vault, authoritySignedByProgram: true };
    if (swap) {
      // amount − fee for the venue's swap (user = relayer) and the fee: all of it to the relayer's input token account.
      createAssociatedTokenAccountCpi(ctx, { payer: a.relayer, account: swap.recipientOutput, wallet: recipient, mint: swap.outputMint, idempotent: true });
      transferTokensCpi(ctx, { ...fromVault, destination: a.relayerTokenAccount, amount: p.amount });
    } else {
      createAssociatedTokenAccountCpi(ctx, { payer: a.relayer, account: a.recipientTokenAccount, wallet: recipient, mint, idempotent: true });
      transferTokensCpi(ctx, { ...fromVault, destination: a.recipientTokenAccount, amount: p.amount - p.fee });
      if (p.fee > 0n) transferTokensCpi(ctx, { ...fromVault, destination: a.relayerTokenAccount, amount: p.fee });
    }

    const totalWithdrawn = tree.totalWithdrawn + p.amount;
    if (totalWithdrawn > U64_MAX) throw builtinError("ArithmeticOverflow", "totalWithdrawn overflows u64");
    tree = { ...tree, totalWithdrawn };
    writeData(ctx, a.tree, encodeTreeAccount(tree));
    this.emit(ctx, { name: "WithdrawEvent", nullifierHash: p.nullifierHash, recipient: p.recipient, amount: p.amount, fee: p.fee, relayer: publicKeyBytes(relayer) });
  }

  /**
   * withdraw_swap's guarantee, read from the Instructions sysvar: this is the
   * transaction's only withdraw_swap of this program, and after it comes exactly
   * one assert_swap_out of this program (none before it either) naming the
   * recipient's output token account with requiredBalance ≥ that account's
   * balance now + minOut. So the recipient ends up with at least minOut more,
   * or nothing happens, whatever the relayer put in between.
   */
  private checkSwapAssertion(ctx: ExecContext, sysvarAccount: InstructionAccount, recipientOutput: string, least: bigint): void {
    ctx.consumeUnits(POOL_UNITS.swapAssertionCheck);
    const raw = ctx.accounts.get(sysvarAccount.address);
    const sysvar = raw ? decodeInstructionsSysvar(raw.data) : null;
    if (!sysvar) throw anchorError(ctx, "AccountDidNotDeserialize", "instructions_sysvar");
    const ours = (ix: CompiledInstruction, name: "withdraw_swap" | "assert_swap_out"): boolean =>
      ix.programId === this.id && ix.data.length >= 8 && INSTRUCTION_DISCRIMINATORS[name].every((b, i) => ix.data[i] === b);
    const current = sysvar.instructions[sysvar.currentIndex];
    if (!current || !ours(current, "withdraw_swap")) {
      throw builtinError("InvalidAccountData", "withdraw_swap must be a top-level instruction: the Instructions sysvar's current instruction is not it");
    }
    if (sysvar.instructions.filter((ix) => ours(ix, "withdraw_swap")).length !== 1) throw this.poolError(ctx, "DuplicateWithdrawSwap");
    const asserts = sysvar.instructions.flatMap((ix, index) => (ours(ix, "assert_swap_out") ? [{ ix, index }] : []));
    if (asserts.length > 1) throw this.poolError(ctx, "SwapAssertDuplicated");
    const assert = asserts[0];
    const decoded = assert ? decodePoolInstruction(assert.ix.data) : null;
    if (!assert || assert.index < sysvar.currentIndex || !decoded?.ok || decoded.value.name !== "assert_swap_out") throw this.poolError(ctx, "SwapAssertMissing");
    if (assert.ix.accounts[0]?.address !== recipientOutput) throw this.poolError(ctx, "SwapAssertWrongAccount");
    if (decoded.value.requiredBalance < least) throw this.poolError(ctx, "RequiredBalanceTooLow");
  }

  /**
   * The last instruction of a swap withdrawal: the recipient's output token
   * account must hold at least requiredBalance (which withdraw_swap checked is
   * at least its balance before the swap + minOut).
   */
  private assertSwapOut(ix: CompiledInstruction, ctx: ExecContext, requiredBalance: bigint): void {
    const a = this.accounts(ctx, "assert_swap_out", ix.accounts).named;
    const out = this.tokenAccount(ctx, a.recipientOutputTokenAccount, "recipient_output_token_account");
    ctx.consumeUnits(POOL_UNITS.assertSwapOut);
    if (out.amount < requiredBalance) throw this.poolError(ctx, "SwapOutputTooLow");
  }

  // --------------------------------------------------------------------- revert

  private revert(ix: CompiledInstruction, ctx: ExecContext, nonce: bigint): void {
    const a = this.accounts(ctx, "revert", ix.accounts).named;
    this.programAccount(ctx, a.tokenProgram, TOKEN_PROGRAM_ID, "token_program");
    this.programAccount(ctx, a.systemProgram, SYSTEM_PROGRAM_ID, "system_program");
    const mint = a.mint.address;
    const depositor = a.depositor.address;
    const tree = this.loadTree(ctx, a.tree, mint);
    if (!bytesEqual(tree.authority, publicKeyBytes(a.authority.address))) throw this.poolError(ctx, "NotAuthority");
    this.vault(ctx, a.vault, mint);
    this.seeds(ctx, a.receipt, findDepositReceiptAddress(this.id, mint, depositor, nonce)[0], "receipt");
    const receipt = this.loadReceipt(ctx, a.receipt);
    this.tokenAccount(ctx, a.depositorTokenAccount, "depositor_token_account", mint, depositor);
    ctx.consumeUnits(POOL_UNITS.revertBase + POOL_UNITS.poseidon);
    const revertNullifier = revertNullifierOfReceipt(this.hasher, publicKeyBytes(a.receipt.address));
    this.seeds(ctx, a.revertMarker, revertMarkerAddress(this.id, mint, revertNullifier), "revert_marker");

    const verdict = judgeRevert(
      { depositor: encodeBase58(receipt.depositor), status: receipt.status, createdAt: Number(receipt.createdAt) },
      depositor,
      this.owns(ctx, a.revertMarker.address),
      ctx.unixTime,
      { pendingRevertAfterSec: 0 },
    );
    if (!verdict.ok) throw this.poolError(ctx, verdict.error.error === "NullifierSpent" ? "NullifierSpent" : "NotRevertable");
    const vault = this.vault(ctx, a.vault, mint);
    if (vault.amount < receipt.amount) throw this.poolError(ctx, "InsufficientVault");

    transferTokensCpi(ctx, { source: a.vault, authority: a.vault, authoritySignedByProgram: true, destination: a.depositorTokenAccount, amount: receipt.amount });
    writeData(ctx, a.receipt, encodeDepositReceipt({ ...receipt, status: "reverted" }));
    createRentExemptAccount(ctx, { payer: a.authority, to: a.revertMarker, space: NULLIFIER_ACCOUNT_SIZE, owner: this.id });
    writeData(ctx, a.revertMarker, encodeNullifierAccount({ mint: publicKeyBytes(mint), nullifierHash: revertNullifier, kind: "revert", slot: BigInt(ctx.slot) }));
    this.emit(ctx, { name: "RevertEvent", depositor: publicKeyBytes(depositor), amount: receipt.amount, nonce, revertNullifier });
  }

  // ------------------------------------------------------------------- helpers

  /** An account of this program exists at `address` (lamports someone merely sent there do not count). */
  private owns(ctx: ExecContext, address: string): boolean {
    return load(ctx, address)?.owner === this.id;
  }

  private emptyTree(): { filledSubtrees: Uint8Array[]; root: Uint8Array } {
    if (!this.empty) {
      const t = new FrontierTree(this.hasher, undefined, TREE_DEPTH);
      this.empty = { filledSubtrees: split(t.state().filledSubtrees), root: t.root() };
    }
    return this.empty;
  }

  private poolError(ctx: ExecContext, name: PoolErrorName): ProgramError {
    ctx.log(poolErrorLogLine(name));
    return new ProgramError({ Custom: POOL_ERRORS[name] }, `${name}: ${POOL_ERROR_MESSAGES[name]}`);
  }

  private emit(ctx: ExecContext, e: PoolEvent): void {
    ctx.log(encodePoolEventLog(e));
  }

  /** The instruction's accounts by name, with the doc's signer and writable flags checked (Anchor: AccountNotSigner, ConstraintMut). */
  private accounts<N extends PoolInstructionName>(ctx: ExecContext, name: N, accounts: readonly InstructionAccount[]) {
    const r = namePoolAccounts(name, accounts);
    if (!r.ok) throw anchorError(ctx, "AccountNotEnoughKeys", undefined, r.error);
    const flags = POOL_INSTRUCTION_ACCOUNT_FLAGS[name] as Record<string, AccountFlags>;
    for (const [n, acct] of Object.entries(r.value.named) as [string, InstructionAccount][]) {
      const f = flags[n];
      if (f?.isSigner && !(acct.isSigner && ctx.signers.has(acct.address))) throw anchorError(ctx, "AccountNotSigner", snake(n));
      if (f?.isMut && !acct.isWritable) throw anchorError(ctx, "ConstraintMut", snake(n));
    }
    return r.value;
  }

  private programAccount(ctx: ExecContext, a: InstructionAccount, id: string, name: string): void {
    if (a.address !== id) throw anchorError(ctx, "InvalidProgramId", name);
  }

  private seeds(ctx: ExecContext, a: InstructionAccount, expected: string, name: string): void {
    if (a.address !== expected) throw anchorError(ctx, "ConstraintSeeds", name, `${name}: expected ${expected}, got ${a.address}`);
  }

  /** The tree at its PDA, decoded from its bytes (the only state of the pool's tree). */
  private loadTree(ctx: ExecContext, a: InstructionAccount, mint: string): TreeAccountData {
    this.seeds(ctx, a, findTreeAddress(this.id, mint)[0], "tree");
    const raw = load(ctx, a.address);
    if (!raw) throw anchorError(ctx, "AccountNotInitialized", "tree");
    if (raw.owner !== this.id) throw anchorError(ctx, "AccountOwnedByWrongProgram", "tree");
    const t = decodeTreeAccount(raw.data);
    if (!t.ok) throw anchorError(ctx, t.error.includes("discriminator") ? "AccountDiscriminatorMismatch" : "AccountDidNotDeserialize", "tree", t.error);
    return t.value;
  }

  private loadReceipt(ctx: ExecContext, a: InstructionAccount): DepositReceiptData {
    const raw = load(ctx, a.address);
    if (!raw) throw anchorError(ctx, "AccountNotInitialized", "receipt");
    if (raw.owner !== this.id) throw anchorError(ctx, "AccountOwnedByWrongProgram", "receipt");
    const r = decodeDepositReceipt(raw.data);
    if (!r.ok) throw anchorError(ctx, r.error.includes("discriminator") ? "AccountDiscriminatorMismatch" : "AccountDidNotDeserialize", "receipt", r.error);
    return r.value;
  }

  /** The vault: the token account at ["vault", mint] whose token owner is itself. */
  private vault(ctx: ExecContext, a: InstructionAccount, mint: string): LoadedTokenAccount {
    this.seeds(ctx, a, poolVaultAddress(this.id, mint), "vault");
    return this.tokenAccount(ctx, a, "vault", mint, a.address);
  }

  /**
   * A token account the program pays into: when it exists it must be an SPL
   * token account of `mint` whose token owner is `owner` (WrongTokenAccount
   * otherwise). Returns it, or null when there is none yet (lamports someone
   * sent to the address do not make one; the program creates it).
   */
  private receivingTokenAccount(ctx: ExecContext, a: InstructionAccount, mint: string, owner: string): LoadedTokenAccount | null {
    const raw = load(ctx, a.address);
    if (!raw || (raw.owner === SYSTEM_PROGRAM_ID && raw.data.length === 0)) return null;
    const t = raw.owner === TOKEN_PROGRAM_ID ? loadTokenAccount(ctx, a.address) : null;
    if (!t || !bytesEqual(t.mint, publicKeyBytes(mint)) || !bytesEqual(t.owner, publicKeyBytes(owner))) throw this.poolError(ctx, "WrongTokenAccount");
    return t;
  }

  /** An existing SPL token account, optionally of `mint` and token owner `owner` (Anchor token::mint / token::authority). */
  private tokenAccount(ctx: ExecContext, a: InstructionAccount, name: string, mint?: string, owner?: string): LoadedTokenAccount {
    const raw = load(ctx, a.address);
    if (!raw) throw anchorError(ctx, "AccountNotInitialized", name);
    if (raw.owner !== TOKEN_PROGRAM_ID) throw anchorError(ctx, "AccountOwnedByWrongProgram", name);
    const t = loadTokenAccount(ctx, a.address);
    if (!t) throw anchorError(ctx, "AccountDidNotDeserialize", name);
    if (mint !== undefined && !bytesEqual(t.mint, publicKeyBytes(mint))) throw anchorError(ctx, "ConstraintTokenMint", name);
    if (owner !== undefined && !bytesEqual(t.owner, publicKeyBytes(owner))) throw anchorError(ctx, "ConstraintTokenOwner", name);
    return t;
  }
}

function snake(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function concat(nodes: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(nodes.length * 32);
  nodes.forEach((n, i) => out.set(n, i * 32));
  return out;
}

function split(bytes: Uint8Array): Uint8Array[] {
  return Array.from({ length: bytes.length / 32 }, (_, i) => bytes.slice(i * 32, i * 32 + 32));
}
