import type { Network } from "../../src-shared/networks";
import type { Result } from "../../src-shared/result";

export interface SandboxDepositRequest {
  mint: string;
  mintBytes: Uint8Array;
  amount: bigint;
  /** Poseidon(nullifier, secret), chosen by the depositor (protocol v2): any 32 bytes reach the chain. */
  precommitment: Uint8Array;
  wallet: string;
  walletBytes: Uint8Array;
  signature: Uint8Array;
}

export interface SandboxDepositResult {
  signature: string;
  status: "indexed" | "failed";
  leafIndex: number | null;
  /**
   * The leaf the pool computed, Poseidon(precommitment, amount, mintField);
   * null when the precommitment is not a usable field element (zero, or not
   * below the modulus). A failed deposit of a leaf already in the tree has one.
   */
  commitment: Uint8Array | null;
}

/** DepositBelowMinimum: the amount is below the pool's minimum deposit (the program's error 6016); nothing moved. */
export type SandboxError = "InvalidSignature" | "InsufficientFunds" | "TreeFull" | "DepositBelowMinimum";

/**
 * What the /sandbox routes do on a sandbox network's ledger (the embedded
 * chain, adapters/chain-sandbox): fund a wallet, deposit as a wallet would,
 * read a balance, set a swap pool's reserves. A Solana network has none.
 */
export interface SandboxLedger {
  readonly network: Network;
  /** Credits `amount` of `mint` to `wallet`; answers the transaction's signature. */
  airdrop(wallet: string, mint: string, amount: bigint): Promise<string>;
  /** The deposit applied in memory; `durable` settles once its ledger write is. */
  applyDeposit(req: SandboxDepositRequest): Promise<Result<{ result: SandboxDepositResult; durable: Promise<void> }, SandboxError>>;
  /** The least a deposit into `mint`'s pool must bring. */
  minDeposit(mint: string): bigint;
  balance(wallet: string, mint: string): bigint;
  /** The sandbox's constant-product pools (0.3% fee). */
  readonly swapPools: {
    /** Creates the pair's pool or resets its reserves. */
    set(mintA: string, mintB: string, reserveA: bigint, reserveB: bigint, now: number): Promise<void>;
  };
}
