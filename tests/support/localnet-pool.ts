/**
 * A pool on a local validator for the SolanaChain and pool-program localnet
 * tests (protocol v3): seven notes of (i+1) SOL, made from fixed seeds and
 * deposited in order as precommitments with nonces 0..6, so the tree and
 * every proof over it are the same on each run. Withdrawals are proved for
 * real (proveWithdrawal, v3: any part of a note, its change note) against the
 * tree read back from the chain (deposit and change leaves, as the indexer
 * reads them), cached on disk by their exact witness (tests/support/proofs.ts),
 * and bound to the relayer (the pool's authority and fee payer, a fixed key),
 * FEE and (swap) an output mint and minOut.
 */
import { createHash } from "node:crypto";
import { Keypair, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { bytesEqual } from "../../src-shared/encoding/bytes";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { DEFAULT_POOL_PROGRAM_ID, depositInstruction, initializePoolInstructions, poolTreeAddress, publicKeyBytes } from "../../src-shared/pool-program";
import { confirmSignature } from "../../src-localnet/confirm";
import { startLocalValidator, type LocalValidator } from "../../src-localnet/validator";
import { defaultSbfPrograms } from "../../src-localnet/programs";
import type { SbfProgram } from "../../src-localnet/ledger/svm";
import { createNote, noteLeafIndex, withDeposit, withLeafIndex, type DepositNote } from "../../src-client/sdk/note";
import { proveWithdrawal, type WithdrawalProof } from "../../src-client/sdk/prove";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { defaultSolanaConfig, type NetworkConfig, type SolanaNetworkConfig } from "../../src-server/config/schema";
import type { LeafEvent, SubmissionAttempt, WithdrawalSubmission } from "../../src-server/ports/chain";
import { Signer } from "../../src-shared/node/keypair-file";
import { DepositHistoryCache, fetchLeafEventsPage } from "../../src-server/adapters/chain-solana/deposit-history";
import { createSolanaRpc, type SolanaConnection } from "../../src-server/adapters/chain-solana/rpc";
import { cachedProver, seededRandom, testRecipient } from "./proofs";

export const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
export const SOL = 1_000_000_000n;
/** The pool's mint (created by the first mintTo). */
export const MINT = encodeBase58(Uint8Array.from({ length: 32 }, (_, i) => 0xf0 - i));
/** The output mint of the swap tests. */
export const OUTPUT_MINT = encodeBase58(Uint8Array.from({ length: 32 }, (_, i) => 0x30 + i));
/** The fee the tests' proofs are bound to (base units of MINT; lamportsPerUnit 1). */
export const FEE = 5_000_000n;
/** The relayer every proof is bound to: the pool's authority and the SolanaChain's fee payer. */
export const RELAYER_SEED = createHash("sha256").update("private-withdrawal-relay/localnet-pool/relayer").digest();
/** Engine timings small enough for tests. */
export const TEST_TIMING = { pollMs: 50, backoffMs: 50, maxBackoffMs: 200, unknownAfterMs: 5_000, preSendRetryMs: 2_000 };
export const NOTE_COUNT = 7;

/** A fixed recipient per label (re-runs hit the proof cache). */
export const recipientOf = (label: string): string => testRecipient(`localnet-pool/${label}`);

export interface ProveOptions {
  /** The part withdrawn; default the note's whole value. */
  amount?: bigint;
  fee?: bigint;
  /** The relayer key the proof is bound to; default the pool's relayer. */
  relayer?: string;
  swap?: { outputMint: string; minOut: bigint };
}

export interface ProvedWithdrawal {
  /** What the relay hands SolanaChain.submitWithdrawal (without a swap leg: the swap tests add theirs). */
  submission: WithdrawalSubmission;
  proof: WithdrawalProof;
  /** The change note the withdrawal leaves; `changeAt(i)` once its leaf index is known. */
  change: DepositNote;
  changeAt(leafIndex: number): DepositNote;
}

export interface FixturePool {
  hasher: FieldHasher;
  validator: LocalValidator;
  rpc: SolanaConnection;
  /** The seven deposited notes, note i at leaf i. */
  notes: DepositNote[];
  /** The pool's authority and the relayer's fee payer, to which every proof is bound by default. */
  relayerKey: Keypair;
  relayer: Signer;
  depositor: Keypair;
  send(instructions: TransactionInstruction[], signers: Keypair[]): Promise<string>;
  /** A solana network bound to this validator. */
  network(solana?: Partial<SolanaNetworkConfig>): NetworkConfig;
  /** Every leaf of the pool in order, read from chain history as the indexer reads it (deposits and change leaves). */
  leafEvents(): Promise<LeafEvent[]>;
  /** A real proof of withdrawing (part of) `note` to `recipient`, over the tree the chain holds now. */
  prove(note: DepositNote, recipient: string, opts?: ProveOptions): Promise<ProvedWithdrawal>;
  /** A token account's balance (0 when it does not exist). */
  balance(account: string): Promise<bigint>;
  close(): Promise<void>;
}

/** `extraPrograms`: SBF programs to load besides the pool program and the cp-swap venue (a test's own, e.g. cpi-proxy). */
export async function startFixturePool(opts: { extraPrograms?: SbfProgram[] } = {}): Promise<FixturePool> {
  const hasher = await createPoseidonHasher();
  // The relayer opens the pool: it is the program's upgrade authority, the one key initialize_pool accepts (issue 25).
  const relayerAddress = Keypair.fromSeed(RELAYER_SEED).publicKey.toBase58();
  const validator = await startLocalValidator({
    slotMs: 40,
    poolProgramId: PROGRAM,
    poolUpgradeAuthority: relayerAddress,
    ...(opts.extraPrograms ? { sbfPrograms: [...defaultSbfPrograms({ poolProgramId: PROGRAM }), ...opts.extraPrograms] } : {}),
  });
  const rpc = createSolanaRpc({ rpcUrl: validator.rpcUrl, wsUrl: validator.wsUrl, commitment: "confirmed", rpcTimeoutMs: 2_000 });
  const relayerKey = Keypair.fromSeed(RELAYER_SEED);
  const relayer = new Signer(new Uint8Array(relayerKey.secretKey));
  const depositor = Keypair.generate();
  const prover = cachedProver();

  const send = async (instructions: TransactionInstruction[], signers: Keypair[]): Promise<string> => {
    const { blockhash, lastValidBlockHeight } = await rpc.getLatestBlockhash("confirmed");
    const tx = new Transaction({ feePayer: signers[0]!.publicKey, blockhash, lastValidBlockHeight }).add(...instructions);
    tx.sign(...signers);
    const signature = await rpc.sendRawTransaction(tx.serialize());
    await confirmSignature(rpc, signature, lastValidBlockHeight);
    return signature;
  };

  await validator.airdrop(relayer.address, 100n * SOL);
  await validator.airdrop(depositor.publicKey.toBase58(), 10n * SOL);
  await validator.mintTo(depositor.publicKey.toBase58(), MINT, 40n * SOL);
  await send(initializePoolInstructions({ programId: PROGRAM, authority: relayer.address, mint: MINT, minDeposit: 1n }), [relayerKey]);
  const notes: DepositNote[] = [];
  for (let i = 0; i < NOTE_COUNT; i++) {
    const made = await createNote({ network: "devnet", mint: MINT, amount: BigInt(i + 1) * SOL, hasher, random: seededRandom(`localnet-pool/note-${i}`) });
    if (!made.ok) throw new Error(made.error);
    const signature = await send(
      [
        depositInstruction({
          programId: PROGRAM,
          depositor: depositor.publicKey.toBase58(),
          mint: MINT,
          precommitment: made.value.precommitment,
          amount: made.value.amount,
          nonce: BigInt(i),
          hasher,
        }),
      ],
      [depositor],
    );
    notes.push(withDeposit(made.value, { signature, status: "indexed", leafIndex: i, wallet: depositor.publicKey.toBase58() }));
  }

  const leafEvents = async (): Promise<LeafEvent[]> => {
    const events: LeafEvent[] = [];
    const cache = new DepositHistoryCache();
    let cursor: string | null = null;
    for (;;) {
      const page = await fetchLeafEventsPage(rpc, { programId: PROGRAM, mint: MINT, treeAddress: poolTreeAddress(PROGRAM, MINT) }, cursor, 1000, { cache });
      if (page.events.length === 0) return events;
      events.push(...page.events);
      cursor = page.cursor;
    }
  };

  const prove = async (note: DepositNote, recipient: string, opts: ProveOptions = {}): Promise<ProvedWithdrawal> => {
    const leafIndex = noteLeafIndex(note);
    if (leafIndex === null) throw new Error("the note has no leaf yet");
    const tree = new MerkleTree(hasher);
    const events = await leafEvents();
    events.forEach((e, i) => {
      if (e.leafIndex !== i) throw new Error(`leaf ${e.leafIndex} read where leaf ${i} belongs`);
    });
    const appended = tree.append(concat(events.map((e) => e.commitment)));
    if (!appended.ok) throw new Error(appended.error);
    if (!bytesEqual(events[leafIndex]!.commitment, note.commitment)) throw new Error(`leaf ${leafIndex} is not the note's`);
    const path = tree.proof(leafIndex);
    if (!path.ok) throw new Error(path.error);
    const proved = await proveWithdrawal(note, { root: tree.root(), path: path.value.path, indices: path.value.indices }, recipient, {
      relayer: opts.relayer ?? relayer.address,
      fee: opts.fee ?? FEE,
      swap: opts.swap ?? null,
      ...(opts.amount !== undefined ? { amount: opts.amount } : {}),
      hasher,
      prover: prover.prover,
    });
    if (!proved.ok) throw new Error(`${proved.error.kind}: ${proved.error.message}`);
    const p = proved.value;
    return {
      proof: p,
      submission: {
        mint: MINT,
        mintBytes: publicKeyBytes(MINT),
        recipient,
        root: p.root,
        nullifierHash: p.nullifierHash,
        proof: p.proof,
        depositSize: p.amount,
        changeCommitment: p.changeCommitment,
        fee: p.fee,
      },
      change: p.change,
      changeAt: (i) => withLeafIndex(p.change, i),
    };
  };

  return {
    hasher,
    validator,
    rpc,
    notes,
    relayerKey,
    relayer,
    depositor,
    send,
    network: (solana = {}) => ({
      enabled: true,
      backend: "solana",
      programId: PROGRAM,
      pools: [MINT],
      rpcUrl: validator.rpcUrl,
      rpcUrls: [validator.rpcUrl],
      wsUrl: validator.wsUrl,
      solana: { ...defaultSolanaConfig(), rebroadcastMs: 150, rpcTimeoutMs: 2_000, lamportsPerUnit: { [MINT]: "1" }, ...solana },
    }),
    leafEvents,
    prove,
    balance: async (account) => {
      const address = new PublicKey(account);
      if (!(await rpc.getAccountInfo(address))) return 0n;
      return BigInt((await rpc.getTokenAccountBalance(address)).value.amount);
    },
    close: async () => {
      await validator.close();
    },
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.length * 32);
  parts.forEach((p, i) => out.set(p, i * 32));
  return out;
}

/** Collects a submission's attempts as the relay's store would. */
export function recorder(): { attempts: SubmissionAttempt[]; observer: { attempt(a: SubmissionAttempt): Promise<boolean> } } {
  const attempts: SubmissionAttempt[] = [];
  return { attempts, observer: { attempt: async (a) => (attempts.push(a), true) } };
}
