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
 * Duplicate commitments are detected with a commitment marker: an empty
 * account owned by the program at PDA ["commitment", mint, commitment],
 * created when the commitment is inserted (deposit's last account,
 * docs/pool-program.md).
 */
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { bytesEqual } from "../../src-shared/encoding/bytes";
import { isCanonicalField, isZeroBytes } from "../../src-shared/encoding/field";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  DEPOSIT_RECEIPT_SIZE,
  NO_LEAF_INDEX,
  NULLIFIER_ACCOUNT_SIZE,
  POOL_ERRORS,
  POOL_ERROR_MESSAGES,
  POOL_INSTRUCTION_ACCOUNT_FLAGS,
  ROOT_HISTORY_SIZE,
  SYSTEM_PROGRAM_ID,
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
 * of a 5-input Groth16 check (4-pair pairing 84 848, five G1 mul+add ≈ 21 000,
 * field checks and the proof's decoding)
 * plus the program's own work. CPIs add their programs' units.
 */
export const POOL_UNITS = {
  initializePool: 22_000,
  depositBase: 26_000,
  poseidon: 786,
  withdrawBase: 38_000,
  proofVerification: 130_000,
  revertBase: 16_000,
  assertSwapOut: 1_800,
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
        return this.assertSwapOut(ix, ctx, p.minOut);
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
    this.vault(ctx, a.vault, mint);
    this.tokenAccount(ctx, a.depositorTokenAccount, "depositor_token_account", mint, depositor);
    const [receiptAddress, receiptBump] = findDepositReceiptAddress(this.id, mint, depositor, p.nonce);
    this.seeds(ctx, a.receipt, receiptAddress, "receipt");
    this.seeds(ctx, marker, commitmentMarkerAddress(this.id, mint, p.commitment), "commitment_marker");
    ctx.consumeUnits(POOL_UNITS.depositBase);
    // `init` of the receipt: a nonce used twice fails with the system program's AccountAlreadyInUse.
    createRentExemptAccount(ctx, { payer: a.depositor, to: a.receipt, space: DEPOSIT_RECEIPT_SIZE, owner: this.id });

    transferTokensCpi(ctx, { source: a.depositorTokenAccount, destination: a.vault, authority: a.depositor, amount: p.amount });

    // Funds reach the vault either way; a commitment that cannot be inserted leaves the deposit failed (revertable).
    const failure: DepositFailedReason | null = isZeroBytes(p.commitment)
      ? "zero"
      : !isCanonicalField(p.commitment)
        ? "notAFieldElement"
        : this.owns(ctx, marker.address)
          ? "duplicate"
          : null;
    let leafIndex: number | null = null;
    if (failure === null) {
      if (tree.nextIndex >= MAX_LEAVES) throw this.poolError(ctx, "TreeFull");
      ctx.consumeUnits(TREE_DEPTH * POOL_UNITS.poseidon);
      const frontier = new FrontierTree(this.hasher, { nextIndex: tree.nextIndex, filledSubtrees: concat(tree.filledSubtrees), roots: rootsOldestFirst(tree) }, TREE_DEPTH);
      const inserted = frontier.insert(p.commitment);
      if (!inserted.ok) throw this.poolError(ctx, "TreeFull");
      leafIndex = inserted.value;
      const state = frontier.state();
      tree = pushRoot({ ...tree, nextIndex: state.nextIndex, filledSubtrees: split(state.filledSubtrees) }, frontier.root());
      createRentExemptAccount(ctx, { payer: a.depositor, to: marker, space: 0, owner: this.id });
    }
    const totalDeposited = tree.totalDeposited + p.amount;
    if (totalDeposited > U64_MAX) throw builtinError("ArithmeticOverflow", "totalDeposited overflows u64");
    tree = { ...tree, depositCount: tree.depositCount + 1n, totalDeposited };
    writeData(ctx, a.tree, encodeTreeAccount(tree));

    const receipt: DepositReceiptData = {
      mint: publicKeyBytes(mint),
      depositor: publicKeyBytes(depositor),
      commitment: p.commitment,
      amount: p.amount,
      nonce: p.nonce,
      status: leafIndex === null ? "failed" : "indexed",
      leafIndex,
      createdAt: BigInt(ctx.unixTime),
      bump: receiptBump,
    };
    writeData(ctx, a.receipt, encodeDepositReceipt(receipt));

    const base = { commitment: p.commitment, depositor: publicKeyBytes(depositor), amount: p.amount, slot: BigInt(ctx.slot), nonce: p.nonce };
    this.emit(ctx, leafIndex === null ? { name: "DepositFailedEvent", ...base, reason: failure! } : { name: "DepositEvent", leafIndex, ...base });
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
    this.tokenAccount(ctx, a.relayerTokenAccount, "relayer_token_account", mint, relayer);
    let swap: { outputMint: string; relayerOutput: InstructionAccount; recipientOutput: InstructionAccount } | null = null;
    if (p.name === "withdraw_swap") {
      const s = this.accounts(ctx, "withdraw_swap", ix.accounts).named;
      const outputMint = encodeBase58(p.outputMint);
      if (s.outputMint.address !== outputMint) throw anchorError(ctx, "ConstraintAddress", "output_mint");
      if (s.relayerOutputTokenAccount.address !== associatedTokenAddress(relayer, outputMint)) throw anchorError(ctx, "ConstraintAssociated", "relayer_output_token_account");
      if (s.recipientOutputTokenAccount.address !== associatedTokenAddress(recipient, outputMint)) {
        throw anchorError(ctx, "ConstraintAssociated", "recipient_output_token_account");
      }
      swap = { outputMint, relayerOutput: s.relayerOutputTokenAccount, recipientOutput: s.recipientOutputTokenAccount };
    }
    ctx.consumeUnits(POOL_UNITS.withdrawBase);

    // Cheap checks first, then the proof: the fee, the root history, the nullifier account.
    if (p.fee > p.amount) throw this.poolError(ctx, "FeeExceedsAmount");
    const stateChecks = (): TreeAccountData => {
      const tree = this.loadTree(ctx, a.tree, mint);
      if (!isKnownRoot(tree, p.root)) throw this.poolError(ctx, "UnknownRoot");
      if (this.owns(ctx, a.nullifier.address)) throw this.poolError(ctx, "NullifierSpent");
      return tree;
    };
    stateChecks();

    // The public inputs are recomputed from the instruction exactly as the relay does; nothing the client computed is trusted.
    ctx.consumeUnits(POOL_UNITS.proofVerification + 2 * POOL_UNITS.poseidon);
    const signals = withdrawalPublicSignals(this.hasher, { root: p.root, nullifierHash: p.nullifierHash, recipient: p.recipient, amount: p.amount, mint: publicKeyBytes(mint) });
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
   * The last instruction of a swap withdrawal. The interface names only the
   * recipient's output token account, so the rule is on its balance:
   * it must hold at least minOut after the swap (withdraw_swap creates the
   * account when missing, so for a fresh recipient this is what it received).
   */
  private assertSwapOut(ix: CompiledInstruction, ctx: ExecContext, minOut: bigint): void {
    const a = this.accounts(ctx, "assert_swap_out", ix.accounts).named;
    const out = this.tokenAccount(ctx, a.recipientOutputTokenAccount, "recipient_output_token_account");
    ctx.consumeUnits(POOL_UNITS.assertSwapOut);
    if (out.amount < minOut) throw this.poolError(ctx, "SwapOutputTooLow");
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
