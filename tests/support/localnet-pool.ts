/**
 * The verifier fixtures' pool (tests/support/groth16/generate.ts) on
 * a local validator: seven notes of (i+1) SOL deposited in order as
 * precommitments with nonces 0..6, so the recorded proofs verify against its
 * root; the relayer (the pool's authority and fee payer) is the fixture
 * relayer every recorded proof is bound to. Shared by the SolanaChain and
 * pool program localnet tests.
 */
import { Keypair, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { computePrecommitment } from "../../src-shared/crypto/protocol";
import { bigIntToBytes32 } from "../../src-shared/encoding/field";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { DEFAULT_POOL_PROGRAM_ID, depositInstruction, initializePoolInstruction, publicKeyBytes } from "../../src-shared/pool-program";
import { confirmSignature } from "../../src-localnet/confirm";
import { startLocalValidator, type LocalValidator } from "../../src-localnet/validator";
import { defaultSolanaConfig, type NetworkConfig, type SolanaNetworkConfig } from "../../src-server/config/schema";
import type { SubmissionAttempt, WithdrawalSubmission } from "../../src-server/ports/chain";
import type { ProofVerifier } from "../../src-server/ports/proof-verifier";
import { Signer } from "../../src-server/adapters/keys/keypair-file";
import { FIXTURE_FEE, FIXTURE_MINT, FIXTURE_NOTE, FIXTURE_OUTPUT_MINT, FIXTURE_RELAYER_SEED, loadFixtures, VKEY_PATH, type WireCase } from "./groth16/fixtures";
import { createGroth16Verifier } from "../../src-server/adapters/verifier-groth16/worker-pool";
import { createSolanaRpc, type SolanaConnection } from "../../src-server/adapters/chain-solana/rpc";

export const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
export const SOL = 1_000_000_000n;
export const MINT = encodeBase58(FIXTURE_MINT);
/** The output mint the withdraw_swap proofs are bound to. */
export const OUTPUT_MINT = encodeBase58(FIXTURE_OUTPUT_MINT);
export const NOTE = FIXTURE_NOTE;
export const RECIPIENTS: Record<string, Uint8Array> = {
  "leaf 0, 1 SOL": Uint8Array.from({ length: 32 }, (_, i) => i + 1),
  "leaf 5, 6 SOL": Uint8Array.from({ length: 32 }, (_, i) => 0xff - 3 * i),
  "leaf 6, 7 SOL": new Uint8Array(32).fill(0x80),
  "leaf 1, 2 SOL, swap min 1": Uint8Array.from({ length: 32 }, (_, i) => 0x11 + i),
  "leaf 2, 3 SOL, swap unreachable": Uint8Array.from({ length: 32 }, (_, i) => 0x51 + i),
};
/** The fee every recorded proof is bound to. */
export const FEE = FIXTURE_FEE;
/** Engine timings small enough for tests. */
export const TEST_TIMING = { pollMs: 50, backoffMs: 50, maxBackoffMs: 200, unknownAfterMs: 5_000, preSendRetryMs: 2_000 };

export interface FixturePool {
  hasher: FieldHasher;
  verifier: ProofVerifier;
  validator: LocalValidator;
  rpc: SolanaConnection;
  cases: Map<string, WireCase>;
  /** The pool's authority and the relayer's fee payer: the fixture relayer the recorded proofs are bound to. */
  relayerKey: Keypair;
  relayer: Signer;
  depositor: Keypair;
  send(instructions: TransactionInstruction[], signers: Keypair[]): Promise<string>;
  /** A solana network bound to this validator. */
  network(solana?: Partial<SolanaNetworkConfig>): NetworkConfig;
  /** The recorded proof of `label` as the relay would submit it (its terms' fee; no swap leg). */
  withdrawal(label: string): WithdrawalSubmission;
  /** The recorded proof's minOut (0 for a plain withdrawal's). */
  minOut(label: string): bigint;
  /** A token account's balance (0 when it does not exist). */
  balance(account: string): Promise<bigint>;
  close(): Promise<void>;
}

export async function startFixturePool(): Promise<FixturePool> {
  const hasher = await createPoseidonHasher();
  const verifier = await createGroth16Verifier(VKEY_PATH, { threads: 1 });
  const cases = new Map(loadFixtures().map((c) => [c.label, c]));
  const validator = await startLocalValidator({ slotMs: 40, poolProgramId: PROGRAM });
  const rpc = createSolanaRpc({ rpcUrl: validator.rpcUrl, wsUrl: validator.wsUrl, commitment: "confirmed", rpcTimeoutMs: 2_000 });
  const relayerKey = Keypair.fromSeed(FIXTURE_RELAYER_SEED);
  const relayer = new Signer(new Uint8Array(relayerKey.secretKey));
  const depositor = Keypair.generate();

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
  await send([initializePoolInstruction({ programId: PROGRAM, authority: relayer.address, mint: MINT })], [relayerKey]);
  for (let i = 0; i < 7; i++) {
    const n = NOTE(i);
    const precommitment = computePrecommitment(hasher, bigIntToBytes32(n.nullifier), bigIntToBytes32(n.secret));
    await send(
      [
        depositInstruction({
          programId: PROGRAM,
          depositor: depositor.publicKey.toBase58(),
          mint: MINT,
          precommitment,
          amount: n.amount,
          nonce: BigInt(i),
          hasher,
        }),
      ],
      [depositor],
    );
  }

  return {
    hasher,
    verifier,
    validator,
    rpc,
    cases,
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
    withdrawal: (label) => {
      const c = cases.get(label)!;
      return {
        mint: MINT,
        mintBytes: publicKeyBytes(MINT),
        recipient: encodeBase58(RECIPIENTS[label]!),
        root: c.signals[0]!,
        nullifierHash: c.signals[1]!,
        proof: c.proof,
        depositSize: NOTE(Number(/leaf (\d)/.exec(label)![1])).amount,
        fee: BigInt(c.terms.fee),
      };
    },
    minOut: (label) => BigInt(cases.get(label)!.terms.minOut ?? "0"),
    balance: async (account) => {
      const address = new PublicKey(account);
      if (!(await rpc.getAccountInfo(address))) return 0n;
      return BigInt((await rpc.getTokenAccountBalance(address)).value.amount);
    },
    close: async () => {
      await validator.close();
      await verifier.close();
    },
  };
}

/** Collects a submission's attempts as the relay's store would. */
export function recorder(): { attempts: SubmissionAttempt[]; observer: { attempt(a: SubmissionAttempt): Promise<void> } } {
  const attempts: SubmissionAttempt[] = [];
  return { attempts, observer: { attempt: async (a) => void attempts.push(a) } };
}
