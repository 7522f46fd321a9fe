/**
 * What the pool program's tests share: the built programs/pool/pool.so in LiteSVM (the real
 * runtime, with the real System, SPL Token and Associated Token programs; tests/support/svm.ts),
 * transactions built only with the codec's web3.js builders (src-shared/pool-program), and the
 * recorded real protocol v3 proofs (tests/support/groth16): the
 * seven fixture notes deposited as precommitments, in order, into FIXTURE_MINT, with the
 * fixture relayer as the pool's authority and every proof's fee receiver.
 *
 * {@link notePool} adds what partial withdrawals need: notes made by the SDK (createNote with
 * seeded secrets), a TypeScript mirror of every pool's leaves (deposits and the change leaves
 * the program inserts), and real proofs from the SDK's proveWithdrawal, cached on disk by
 * witness input (tests/support/proofs.ts), so a re-run of the same sequence proves nothing.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { computeLeaf, computePrecommitment } from "../../src-shared/crypto/protocol";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { bigIntToBytes32 } from "../../src-shared/encoding/field";
import {
  DEFAULT_POOL_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  decodeDepositReceipt,
  decodePoolEventInstruction,
  decodeProgramDataHeader,
  decodeTreeAccount,
  depositInstruction,
  encodeProgramDataHeader,
  eventAuthorityAddress,
  initializePoolInstructions,
  poolTreeAddress,
  programDataAddress,
  poolVaultAddress,
  publicKeyBytes,
  type DepositReceiptData,
  type PoolEvent,
  type TreeAccountData,
  type WithdrawParams,
} from "../../src-shared/pool-program";
import { CP_SWAP_PROGRAM_ID, createCpPool, type CpPoolInfo } from "../../src-localnet/programs/cp-swap-client";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { createNote, type DepositNote } from "../../src-client/sdk/note";
import { proveWithdrawal, type MerklePathInput, type WithdrawalProof } from "../../src-client/sdk/prove";
import { cachedProver, seededRandom } from "../../tests/support/proofs";
import { encodeMint } from "../../src-localnet/ledger/token";
import { Svm, type TxResult } from "../../tests/support/svm";
import { FailedTransactionMetadata, type TransactionMetadata } from "litesvm/dist/internal.js";
import bs58 from "bs58";
import {
  FIXTURE_CASES,
  FIXTURE_FEE,
  FIXTURE_MINT,
  FIXTURE_NOTE,
  FIXTURE_OUTPUT_MINT,
  FIXTURE_RELAYER_SEED,
  loadFixtures,
  type WireCase,
} from "../../tests/support/groth16/fixtures";

const HERE = dirname(fileURLToPath(import.meta.url));
export const POOL_SO = join(HERE, "pool.so");
export const CP_SWAP_SO = join(HERE, "..", "cp-swap", "cp-swap.so");
export const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
export const SOL = 1_000_000_000n;
export const MINT = encodeBase58(FIXTURE_MINT);
export const OUTPUT_MINT = encodeBase58(FIXTURE_OUTPUT_MINT);
export const FEE = FIXTURE_FEE;
export const UNIT_LIMIT = 1_400_000;
/** The pools' minimum deposit in these tests: 1 base unit, so the existing amounts all pass. */
export const DEFAULT_MIN_DEPOSIT = 1n;

export const PLAIN = "leaf 0, 1 SOL";
export const PLAIN_5 = "leaf 5, 6 SOL";
export const PLAIN_6 = "leaf 6, 7 SOL";
export const SWAP = "leaf 1, 2 SOL, swap min 1";
export const SWAP_UNREACHABLE = "leaf 2, 3 SOL, swap unreachable";

/** A transaction's outcome, with the units each top-level instruction consumed (the compute-budget instruction first). */
export interface Landed extends TxResult {
  /** Units consumed per top-level instruction that ran, in order, by program id. */
  units: { program: string; consumed: number }[];
  /** The serialized transaction's size in bytes. */
  size: number;
  /** The runtime's inner instructions per top-level instruction (empty for a simulation). */
  inner: InnerInstructionView[][];
  /**
   * The pool's events, in order: the data of its event CPIs (inner instructions of the pool
   * program whose first account is the event authority), as an indexer reads them.
   */
  events: PoolEvent[];
}

/** The pool events among a transaction's inner instructions. */
export function eventsOf(inner: readonly InnerInstructionView[][]): PoolEvent[] {
  const authority = eventAuthorityAddress(PROGRAM);
  const out: PoolEvent[] = [];
  for (const list of inner) {
    for (const ix of list) {
      if (ix.program !== PROGRAM || ix.accounts[0] !== authority) continue;
      const e = decodePoolEventInstruction(ix.data);
      if (e) out.push(e);
    }
  }
  return out;
}

function innerViews(meta: TransactionMetadata, keys: readonly string[]): InnerInstructionView[][] {
  return meta.innerInstructions().map((list) =>
    list.map((i) => {
      const c = i.instruction();
      return { program: keys[c.programIdIndex()]!, accounts: [...c.accounts()].map((a) => keys[a]!), data: c.data(), stackHeight: i.stackHeight() };
    }),
  );
}

/** The account keys a compiled instruction's indexes name: static keys, then the tables' writable, then readonly ones. */
function messageKeys(tx: Transaction | VersionedTransaction, lookupTables?: AddressLookupTableAccount[]): string[] {
  if (tx instanceof VersionedTransaction) {
    const k = tx.message.getAccountKeys(lookupTables ? { addressLookupTableAccounts: lookupTables } : undefined);
    return [...k.staticAccountKeys, ...(k.accountKeysFromLookups?.writable ?? []), ...(k.accountKeysFromLookups?.readonly ?? [])].map((x) => x.toBase58());
  }
  return tx.compileMessage().accountKeys.map((x) => x.toBase58());
}

/**
 * Sets (or, with null, drops) the upgrade authority in the program's ProgramData header, the
 * rest of the account as it is. LiteSVM's addProgram deploys through the upgradeable loader with
 * no authority, and initialize_pool accepts only the upgrade authority: a test that initializes
 * pools makes its pool authority the upgrade authority first.
 */
export function setUpgradeAuthority(svm: Svm, programId: string, authority: PublicKey | null): void {
  const address = new PublicKey(programDataAddress(programId));
  const account = svm.getAccount(address);
  if (!account) throw new Error(`no ProgramData account for ${programId}`);
  const header = decodeProgramDataHeader(account.data);
  if (!header.ok) throw new Error(header.error);
  const data = Uint8Array.from(account.data);
  data.set(encodeProgramDataHeader({ slot: header.value.slot, upgradeAuthority: authority ? authority.toBytes() : null }));
  svm.setAccount(address, { lamports: account.lamports, data, owner: account.owner });
}

/** A compiled inner instruction with its program and accounts resolved to base58 keys. */
export interface InnerInstructionView {
  program: string;
  accounts: string[];
  data: Uint8Array;
  stackHeight: number;
}

/** A landed legacy transaction with the runtime's inner instructions, per top-level instruction. */
export interface LandedWithInner {
  ok: boolean;
  logs: string[];
  inner: InnerInstructionView[][];
}

/**
 * Sends a legacy transaction (signers[0] pays) and returns the inner instructions the runtime
 * recorded, as an RPC's meta.innerInstructions: what readers take events from, whatever the logs
 * lost.
 */
export function sendWithInner(svm: Svm, instructions: TransactionInstruction[], signers: Keypair[]): LandedWithInner {
  const tx = new Transaction().add(...instructions);
  tx.feePayer = signers[0]!.publicKey;
  tx.recentBlockhash = svm.latestBlockhash();
  tx.sign(...signers);
  const keys = tx.compileMessage().accountKeys.map((k) => k.toBase58());
  const r = svm.raw.sendLegacyTransaction(tx.serialize());
  svm.expireBlockhash();
  const failed = r instanceof FailedTransactionMetadata;
  const meta = failed ? r.meta() : r;
  return { ok: !failed, logs: meta.logs(), inner: innerViews(meta, keys) };
}

/** Per top-level instruction: `Program <id> consumed N of M compute units` at invoke depth 1. */
export function topLevelUnits(logs: readonly string[]): { program: string; consumed: number }[] {
  const out: { program: string; consumed: number }[] = [];
  let depth = 0;
  for (const line of logs) {
    const invoke = /^Program (\S+) invoke \[(\d+)\]$/.exec(line);
    if (invoke) {
      depth = Number(invoke[2]);
      continue;
    }
    const consumed = /^Program (\S+) consumed (\d+) of \d+ compute units$/.exec(line);
    if (consumed && depth === 1) out.push({ program: consumed[1]!, consumed: Number(consumed[2]) });
    if (/^Program \S+ (success|failed)/.test(line)) depth = Math.max(0, depth - 1);
  }
  return out;
}

export class PoolWorld {
  readonly svm = new Svm();
  readonly mint: PublicKey;
  private constructor(
    readonly hasher: FieldHasher,
    readonly authority: Keypair,
    mint: PublicKey,
  ) {
    this.svm.addProgram(POOL_SO, new PublicKey(PROGRAM));
    setUpgradeAuthority(this.svm, PROGRAM, authority.publicKey);
    this.svm.airdrop(authority.publicKey, 1_000n * SOL);
    this.mint = mint;
  }

  /** A pool program with a mint (9 decimals) and an authority holding lamports; not initialized. */
  static async create(opts: { authority?: Keypair; mint?: PublicKey; hasher?: FieldHasher } = {}): Promise<PoolWorld> {
    const hasher = opts.hasher ?? (await createPoseidonHasher());
    const authority = opts.authority ?? Keypair.generate();
    const world = new PoolWorld(hasher, authority, opts.mint ?? Keypair.generate().publicKey);
    world.svm.createMint(authority.publicKey, 9, world.mint);
    return world;
  }

  get mintAddress(): string {
    return this.mint.toBase58();
  }
  get tree(): PublicKey {
    return new PublicKey(poolTreeAddress(PROGRAM, this.mintAddress));
  }
  get vault(): PublicKey {
    return new PublicKey(poolVaultAddress(PROGRAM, this.mintAddress));
  }

  /** Sends with a 1.4M unit limit in front (our instructions are at index 1...), signature checked. */
  send(instructions: TransactionInstruction[], signers: Keypair[], lookupTables?: AddressLookupTableAccount[]): Landed {
    const all = [ComputeBudgetProgram.setComputeUnitLimit({ units: UNIT_LIMIT }), ...instructions];
    let tx: Transaction | VersionedTransaction;
    if (lookupTables) {
      const message = new TransactionMessage({
        payerKey: signers[0]!.publicKey,
        recentBlockhash: this.svm.latestBlockhash(),
        instructions: all,
      }).compileToV0Message(lookupTables);
      tx = new VersionedTransaction(message);
    } else {
      tx = new Transaction().add(...all);
    }
    const r = this.svm.send(tx, signers);
    this.svm.expireBlockhash();
    const size = tx instanceof VersionedTransaction ? tx.serialize().length : tx.serialize({ requireAllSignatures: false, verifySignatures: false }).length;
    const recorded = this.svm.raw.getTransaction(bs58.decode(r.signature));
    const meta = recorded === null ? null : recorded instanceof FailedTransactionMetadata ? recorded.meta() : recorded;
    const inner = meta ? innerViews(meta, messageKeys(tx, lookupTables)) : [];
    return { ...r, units: topLevelUnits(r.logs), size, inner, events: eventsOf(inner) };
  }

  /** Like send (v0 with these lookup tables), without committing anything. */
  simulate(instructions: TransactionInstruction[], signers: Keypair[], lookupTables: AddressLookupTableAccount[]): Landed {
    const all = [ComputeBudgetProgram.setComputeUnitLimit({ units: UNIT_LIMIT }), ...instructions];
    const message = new TransactionMessage({
      payerKey: signers[0]!.publicKey,
      recentBlockhash: this.svm.latestBlockhash(),
      instructions: all,
    }).compileToV0Message(lookupTables);
    const tx = new VersionedTransaction(message);
    const r = this.svm.simulate(tx, signers);
    return { ...r, units: topLevelUnits(r.logs), size: tx.serialize().length, inner: [], events: [] };
  }

  /** The pool program's units in a landed transaction (each of its top-level instructions). */
  poolUnits(r: Landed): number[] {
    return r.units.filter((u) => u.program === PROGRAM).map((u) => u.consumed);
  }

  /** initialize_pool and the three extend_pool that make the tree full size, in one transaction. */
  initialize(authority: Keypair = this.authority, minDeposit: bigint = DEFAULT_MIN_DEPOSIT): Landed {
    return this.send(initializePoolInstructions({ programId: PROGRAM, authority: authority.publicKey.toBase58(), mint: this.mintAddress, minDeposit }), [
      authority,
    ]);
  }

  get eventAuthority(): string {
    return eventAuthorityAddress(PROGRAM);
  }

  depositIx(depositor: Keypair, precommitment: Uint8Array, amount: bigint, nonce: bigint): TransactionInstruction {
    return depositInstruction({
      programId: PROGRAM,
      depositor: depositor.publicKey.toBase58(),
      mint: this.mintAddress,
      precommitment,
      amount,
      nonce,
      hasher: this.hasher,
    });
  }

  deposit(depositor: Keypair, precommitment: Uint8Array, amount: bigint, nonce: bigint): Landed {
    return this.send([this.depositIx(depositor, precommitment, amount, nonce)], [depositor]);
  }

  /** A depositor with lamports and `amount` of the mint in their associated token account. */
  depositor(amount: bigint, keypair: Keypair = Keypair.generate()): Keypair {
    this.svm.airdrop(keypair.publicKey, 10n * SOL);
    this.svm.createTokenAccount(this.mint, keypair.publicKey, amount);
    return keypair;
  }

  treeAccount(): TreeAccountData {
    const a = this.svm.getAccount(this.tree);
    if (!a) throw new Error("no tree account");
    const t = decodeTreeAccount(a.data);
    if (!t.ok) throw new Error(t.error);
    return t.value;
  }

  receipt(address: string): DepositReceiptData {
    const a = this.svm.getAccount(new PublicKey(address));
    if (!a) throw new Error(`no receipt at ${address}`);
    const r = decodeDepositReceipt(a.data);
    if (!r.ok) throw new Error(r.error);
    return r.value;
  }

  balance(tokenAccount: PublicKey | string): bigint {
    return this.svm.tokenBalance(typeof tokenAccount === "string" ? new PublicKey(tokenAccount) : tokenAccount);
  }

  vaultBalance(): bigint {
    return this.balance(this.vault);
  }

  exists(address: PublicKey | string): boolean {
    const a = this.svm.getAccount(typeof address === "string" ? new PublicKey(address) : address);
    return a !== undefined && (a.lamports > 0n || a.data.length > 0);
  }

  /** Deploys cp-swap (programs/cp-swap) and makes the pool of (mint, outputMint) with these reserves, as the local validator does. */
  cpPool(outputMint: PublicKey, reserveIn: bigint, reserveOut: bigint): CpPoolInfo {
    if (!this.svm.getAccount(new PublicKey(CP_SWAP_PROGRAM_ID))) this.svm.addProgram(CP_SWAP_SO, new PublicKey(CP_SWAP_PROGRAM_ID));
    const svm = this.svm;
    const ledger = {
      getAccount: (address: string) => {
        const a = svm.getAccount(new PublicKey(address));
        return a && (a.lamports > 0n || a.data.length > 0) ? { lamports: a.lamports, owner: a.owner.toBase58(), data: a.data, executable: a.executable } : null;
      },
      setAccount: (address: string, a: { lamports: bigint; owner: string; data: Uint8Array; executable: boolean } | null) => {
        svm.setAccount(
          new PublicKey(address),
          a ? { lamports: a.lamports, owner: new PublicKey(a.owner), data: a.data, executable: a.executable } : { lamports: 0n, owner: PublicKey.default },
        );
      },
      mintTo: (owner: string, mint: string, amount: bigint): string => {
        if (!svm.getAccount(new PublicKey(mint))) {
          svm.setAccount(new PublicKey(mint), {
            data: encodeMint({ mintAuthority: null, supply: 0n, decimals: 6, freezeAuthority: null }),
            owner: new PublicKey(TOKEN_PROGRAM_ID),
          });
        }
        return svm.createTokenAccount(new PublicKey(mint), new PublicKey(owner), amount).toBase58();
      },
      rentExempt: (size: number) => svm.rentExempt(size),
    };
    return createCpPool(ledger, this.mintAddress, outputMint.toBase58(), reserveIn, reserveOut);
  }

  /** A lookup table account (as a route's would be) holding these addresses; returns it for compileToV0Message. */
  lookupTable(addresses: readonly string[]): AddressLookupTableAccount {
    const data = new Uint8Array(56 + 32 * addresses.length);
    const v = new DataView(data.buffer);
    v.setUint32(0, 1, true);
    v.setBigUint64(4, (1n << 64n) - 1n, true);
    addresses.forEach((a, i) => data.set(publicKeyBytes(a), 56 + 32 * i));
    const key = Keypair.generate().publicKey;
    this.svm.setAccount(key, { data, owner: new PublicKey("AddressLookupTab1e1111111111111111111111111") });
    return new AddressLookupTableAccount({ key, state: AddressLookupTableAccount.deserialize(data) });
  }
}

/** The recorded proofs' pool: seven notes of (i+1) SOL deposited in order (nonces 0..6) by one depositor. */
export interface FixturePool {
  world: PoolWorld;
  relayer: Keypair;
  depositor: Keypair;
  outputMint: PublicKey;
  cases: Map<string, WireCase>;
  /** The recorded proof of `label` as withdraw's parameters (its terms: the fixture relayer, FEE). */
  params(label: string, over?: Partial<WithdrawParams>): WithdrawParams;
  recipient(label: string): string;
  minOut(label: string): bigint;
  amount(label: string): bigint;
}

export async function fixturePool(): Promise<FixturePool> {
  const relayer = Keypair.fromSeed(FIXTURE_RELAYER_SEED);
  const world = await PoolWorld.create({ authority: relayer, mint: new PublicKey(FIXTURE_MINT) });
  const outputMint = world.svm.createMint(relayer.publicKey, 6, new PublicKey(FIXTURE_OUTPUT_MINT));
  const init = world.initialize();
  if (!init.ok) throw new Error(`initialize_pool: ${init.logs.join("\n")}`);
  const depositor = world.depositor(40n * SOL);
  for (let i = 0; i < 7; i++) {
    const n = FIXTURE_NOTE(i);
    const precommitment = computePrecommitment(world.hasher, bigIntToBytes32(n.nullifier), bigIntToBytes32(n.secret));
    const r = world.deposit(depositor, precommitment, n.amount, BigInt(i));
    if (!r.ok) throw new Error(`deposit ${i}: ${r.logs.join("\n")}`);
  }
  // The fee's receiver: the relayer's own token account of the mint.
  world.svm.createTokenAccount(world.mint, relayer.publicKey, 0n);
  const cases = new Map(loadFixtures().map((c) => [c.label, c]));
  const fixtureCase = (label: string) => {
    const f = FIXTURE_CASES.find((c) => c.label === label);
    if (!f) throw new Error(`no fixture case ${label}`);
    return f;
  };
  return {
    world,
    relayer,
    depositor,
    outputMint,
    cases,
    recipient: (label) => encodeBase58(fixtureCase(label).recipient),
    amount: (label) => FIXTURE_NOTE(fixtureCase(label).index).amount,
    minOut: (label) => fixtureCase(label).swap?.minOut ?? 0n,
    params: (label, over = {}) => {
      const c = cases.get(label)!;
      return {
        programId: PROGRAM,
        relayer: relayer.publicKey.toBase58(),
        mint: MINT,
        proof: c.proof,
        root: c.signals[0]!,
        nullifierHash: c.signals[1]!,
        recipient: encodeBase58(fixtureCase(label).recipient),
        amount: FIXTURE_NOTE(fixtureCase(label).index).amount,
        fee: FEE,
        changeCommitment: c.signals[6]!,
        ...over,
      };
    },
  };
}

/** The recipient's associated token account of a mint. */
export const ata = (owner: string, mint: string): string => associatedTokenAddress(owner, mint);

/** A pool's leaves in order, as the program inserted them: the paths and roots proofs need. */
export class LeafMirror {
  private readonly tree: MerkleTree;
  constructor(hasher: FieldHasher, leaves: readonly Uint8Array[] = []) {
    this.tree = new MerkleTree(hasher);
    for (const l of leaves) this.append(l);
  }
  /** Appends one leaf; its index. */
  append(leaf: Uint8Array): number {
    const r = this.tree.append(leaf.slice());
    if (!r.ok) throw new Error(r.error);
    return r.value.firstIndex;
  }
  get nextIndex(): number {
    return this.tree.nextIndex;
  }
  root(): Uint8Array {
    return this.tree.root();
  }
  merkle(leafIndex: number): MerklePathInput {
    const p = this.tree.proof(leafIndex);
    if (!p.ok) throw new Error(p.error);
    return { root: this.tree.root(), path: p.value.path, indices: p.value.indices };
  }
}

/** A note with its leaf's index in its pool. */
export interface PlacedNote {
  note: DepositNote;
  leafIndex: number;
}

export interface NotePool extends FixturePool {
  /** Each initialized pool's leaves by mint (base58); the fixture pool's seven deposits first. */
  mirrors: Map<string, LeafMirror>;
  /** Initializes the pool of another mint (authority: the fixture relayer) with an empty mirror. */
  initPool(mint: string): void;
  /** A deposit note of `value` with secrets from `seed` (re-runs make the same note), deposited into `mint`'s pool (default the fixture mint). */
  depositNote(seed: string, value: bigint, mint?: string): Promise<PlacedNote>;
  /** A real v3 proof (cached) of withdrawing `amount` (default the whole value) of the note along the mirror's current root, bound to the fixture relayer. */
  prove(
    placed: PlacedNote,
    recipient: string,
    opts?: { amount?: bigint; fee?: bigint; swap?: { outputMint: string; minOut: bigint } },
  ): Promise<WithdrawalProof>;
  /** withdraw's parameters for a proof. */
  withdrawParams(p: WithdrawalProof, over?: Partial<WithdrawParams>): WithdrawParams;
  /** After the withdrawal landed: its change leaf into the mirror; the change note where the program put it. */
  landed(p: WithdrawalProof): PlacedNote;
}

let depositNonce = 1_000n;

export async function notePool(): Promise<NotePool> {
  const f = await fixturePool();
  const { world, relayer } = f;
  const hasher = world.hasher;
  const fixtureLeaves = [0, 1, 2, 3, 4, 5, 6].map((i) => {
    const n = FIXTURE_NOTE(i);
    return computeLeaf(hasher, computePrecommitment(hasher, bigIntToBytes32(n.nullifier), bigIntToBytes32(n.secret)), n.amount, FIXTURE_MINT);
  });
  const mirrors = new Map<string, LeafMirror>([[MINT, new LeafMirror(hasher, fixtureLeaves)]]);
  const prover = cachedProver().prover;
  const mirrorOf = (mint: string): LeafMirror => {
    const m = mirrors.get(mint);
    if (!m) throw new Error(`no pool of ${mint} in this world`);
    return m;
  };
  return {
    ...f,
    mirrors,
    initPool(mint) {
      const r = world.send(initializePoolInstructions({ programId: PROGRAM, authority: relayer.publicKey.toBase58(), mint, minDeposit: DEFAULT_MIN_DEPOSIT }), [
        relayer,
      ]);
      if (!r.ok) throw new Error(`initialize_pool ${mint}: ${r.logs.join("\n")}`);
      mirrors.set(mint, new LeafMirror(hasher));
    },
    async depositNote(seed, value, mint = MINT) {
      const created = await createNote({ network: "devnet", mint, amount: value, hasher, random: seededRandom(`programs/pool ${seed}`) });
      if (!created.ok) throw new Error(created.error);
      const note = created.value;
      const depositor = Keypair.generate();
      world.svm.airdrop(depositor.publicKey, 10n * SOL);
      world.svm.createTokenAccount(new PublicKey(mint), depositor.publicKey, value);
      const ix = depositInstruction({
        programId: PROGRAM,
        depositor: depositor.publicKey.toBase58(),
        mint,
        precommitment: note.precommitment,
        amount: value,
        nonce: depositNonce++,
        hasher,
      });
      const r = world.send([ix], [depositor]);
      if (!r.ok) throw new Error(`deposit ${seed}: ${r.logs.join("\n")}`);
      return { note, leafIndex: mirrorOf(mint).append(note.commitment) };
    },
    async prove(placed, recipient, opts = {}) {
      const merkle = mirrorOf(placed.note.mint).merkle(placed.leafIndex);
      const p = await proveWithdrawal(placed.note, merkle, recipient, {
        relayer: relayer.publicKey.toBase58(),
        fee: opts.fee ?? FEE,
        ...(opts.amount === undefined ? {} : { amount: opts.amount }),
        ...(opts.swap ? { swap: opts.swap } : {}),
        hasher,
        prover,
      });
      if (!p.ok) throw new Error(`${p.error.kind}: ${p.error.message}`);
      return p.value;
    },
    withdrawParams(p, over = {}) {
      return {
        programId: PROGRAM,
        relayer: relayer.publicKey.toBase58(),
        mint: p.mint,
        proof: p.proof,
        root: p.root,
        nullifierHash: p.nullifierHash,
        recipient: p.recipient,
        amount: p.amount,
        fee: p.fee,
        changeCommitment: p.changeCommitment,
        ...over,
      };
    },
    landed(p) {
      return { note: p.change, leafIndex: mirrorOf(p.mint).append(p.changeCommitment) };
    },
  };
}
