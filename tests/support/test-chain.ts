import { DEFAULT_PROGRAM_ID } from "../../src-server/config/schema";
import { revertNullifierOf } from "../../src-server/core/revert/nullifier";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { parseBase58 } from "../../src-shared/encoding/base58";
import type { Network } from "../../src-shared/networks";
import { vaultAddress } from "../../src-shared/solana/pda";
import { airdrop as sandboxAirdrop, deposit as sandboxDeposit } from "./sandbox";
import { get, type TestWallet } from "./wallet";

/** What a chain needs of a wallet: tests/support/wallet.ts's TestWallet fits. */
export interface ChainWallet {
  address: string;
  /** ed25519 over the UTF-8 message, base58 (the sandbox's deposit authorization). */
  sign(message: string): string;
  /** Raw ed25519 over bytes: signs a Solana transaction message (solana networks need it). */
  signBytes?(message: Uint8Array): Uint8Array;
}

export interface TestDeposit {
  signature: string;
  status: "indexed" | "failed";
  leafIndex: number | null;
  /**
   * The leaf the pool computed, Poseidon(precommitment, amount, mintField)
   * (protocol v2); null when the precommitment could not make one.
   */
  commitment: Uint8Array | null;
}

/**
 * What an HTTP test needs of the chain behind a network, whichever backend it
 * is: fund a wallet, deposit a precommitment (and wait until the relay has
 * indexed the leaf the pool computed from it), read a balance. The sandbox does it through /sandbox/*; a
 * solana network through real transactions to the local validator.
 */
export interface TestChain {
  readonly kind: "sandbox" | "solana";
  readonly network: Network;
  /** Test tokens (and, on solana, SOL for fees) to the wallet. */
  fund(wallet: TestWallet, amount: number, mint: string): Promise<void>;
  /** Protocol v2: the wallet sends a precommitment, Poseidon(nullifier, secret); the pool computes the leaf. */
  deposit(wallet: ChainWallet, precommitment: Uint8Array, amount: number, mint: string): Promise<TestDeposit>;
  /** Token balance in base units. */
  balance(owner: string, mint: string): Promise<bigint>;
  /** The pool vault's balance. */
  vaultBalance(mint: string): Promise<bigint>;
  /** The revert-nullifier a revert of this deposit spends (its derivation is the backend's). */
  revertNullifier(depositSignature: string): Promise<Uint8Array>;
}

export function sandboxTestChain(relayUrl: string, network: Network = "mainnet", programId: string = DEFAULT_PROGRAM_ID): TestChain {
  const balance = async (owner: string, mint: string): Promise<bigint> => {
    const r = await get(`${relayUrl}/sandbox/balance/${network}/${owner}/${mint}`);
    if (r.status !== 200) throw new Error(`balance: ${r.status} ${r.text}`);
    return BigInt((r.json as { amount: string }).amount);
  };
  return {
    kind: "sandbox",
    network,
    fund: (wallet, amount, mint) => sandboxAirdrop(relayUrl, wallet, amount, mint, network),
    deposit: async (wallet, precommitment, amount, mint) => {
      const d = await sandboxDeposit(relayUrl, wallet, Array.from(precommitment), amount, mint, network);
      return { signature: d.signature, status: d.status, leafIndex: d.leafIndex, commitment: d.commitment ? Uint8Array.from(d.commitment) : null };
    },
    balance,
    vaultBalance: (mint) => balance(vaultAddress(keyBytes(programId), keyBytes(mint)), mint),
    // The sandbox derives it from the deposit's transaction signature (docs/decisions.md).
    revertNullifier: async (sig) => revertNullifierOf(await createPoseidonHasher(), keyBytes(sig, 64)),
  };
}

function keyBytes(s: string, length = 32): Uint8Array {
  const b = parseBase58(s, length);
  if (!b.ok) throw new Error(`not ${length} base58 bytes: ${s}`);
  return b.value;
}
