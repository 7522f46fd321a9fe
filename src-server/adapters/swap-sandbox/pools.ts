import { encodeBase58, publicKeyBytesOrThrow } from "../../../src-shared/encoding/base58";
import type { Network } from "../../../src-shared/networks";
import { findProgramAddress } from "../../../src-shared/solana/program-address";
import { err, ok, type Result } from "../../../src-shared/result";
import { cpSwap, type CpSwap } from "../../../src-shared/swap/constant-product";
import type { DurableDb } from "../storage-sqljs/durable-db";

export interface PoolReserves {
  ammKey: string;
  reserveIn: bigint;
  reserveOut: bigint;
}

export interface SwapExecution {
  ammKey: string;
  swap: CpSwap;
}

export type SwapExecutionRefusal =
  { rejection: "InsufficientLiquidity"; detail: string } | { rejection: "SlippageExceeded"; detail: string; outAmount: bigint };

const enc = new TextEncoder();

/** Byte order of the mints, as a program would sort its seeds. */
function ordered(a: string, b: string): [string, string] {
  const x = publicKeyBytesOrThrow(a);
  const y = publicKeyBytesOrThrow(b);
  for (let i = 0; i < 32; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? [a, b] : [b, a];
  return [a, b];
}

/**
 * The sandbox's constant-product pools (0.3% fee), one per unordered mint
 * pair. A pool is an account, the PDA ["swap_pool", mintA, mintB]; its
 * reserves are that account's balances in the ledger, so a swap is a pair of
 * balance moves inside the withdrawal's own atomic write.
 */
export class SandboxSwapPools {
  constructor(
    readonly network: Network,
    private readonly db: DurableDb,
    private readonly programId: Uint8Array,
    /** The ledger's balance of (owner, mint), read now. */
    private readonly balance: (owner: string, mint: string) => bigint,
  ) {}

  ammKeyOf(mintA: string, mintB: string): string {
    const [a, b] = ordered(mintA, mintB);
    return encodeBase58(findProgramAddress([enc.encode("swap_pool"), publicKeyBytesOrThrow(a), publicKeyBytesOrThrow(b)], this.programId)[0]);
  }

  /** The pool of a pair, oriented input → output; null when the pair has none. */
  reserves(inputMint: string, outputMint: string): PoolReserves | null {
    const [a, b] = ordered(inputMint, outputMint);
    const row = this.db.get<{ amm_key: string }>("SELECT amm_key FROM sandbox_swap_pools WHERE network = ? AND mint_a = ? AND mint_b = ?", [
      this.network,
      a,
      b,
    ]);
    if (!row) return null;
    return { ammKey: row.amm_key, reserveIn: this.balance(row.amm_key, inputMint), reserveOut: this.balance(row.amm_key, outputMint) };
  }

  /**
   * The swap as it would execute now, synchronously (no await between this
   * read and the caller's write): refused without a pool or enough depth, and
   * below `minOut`.
   */
  execute(inputMint: string, outputMint: string, amountIn: bigint, minOut: bigint): Result<SwapExecution, SwapExecutionRefusal> {
    const pool = this.reserves(inputMint, outputMint);
    if (!pool) return err({ rejection: "InsufficientLiquidity", detail: `no swap pool for ${inputMint} -> ${outputMint}` });
    const swap = cpSwap(amountIn, pool.reserveIn, pool.reserveOut);
    if (!swap.ok) return err({ rejection: "InsufficientLiquidity", detail: swap.error.detail });
    if (swap.value.amountOut < minOut) {
      return err({
        rejection: "SlippageExceeded",
        detail: `the swap would deliver ${swap.value.amountOut}, below the accepted minimum ${minOut}`,
        outAmount: swap.value.amountOut,
      });
    }
    return ok({ ammKey: pool.ammKey, swap: swap.value });
  }

  /**
   * POST /sandbox/swap_pool: creates the pair's pool, or sets an existing
   * pool's reserves (a test drains or refills a pool this way). The reserves
   * are minted into the pool account, like an airdrop.
   */
  async set(mintA: string, mintB: string, reserveA: bigint, reserveB: bigint, now: number): Promise<void> {
    const [a, b] = ordered(mintA, mintB);
    const ammKey = this.ammKeyOf(a, b);
    const reserve = (mint: string): bigint => (mint === mintA ? reserveA : reserveB);
    const upsertBalance =
      "INSERT INTO sandbox_balances (network, owner, mint, amount) VALUES (?, ?, ?, ?) ON CONFLICT (network, owner, mint) DO UPDATE SET amount = excluded.amount";
    await this.db.write([
      {
        sql: "INSERT INTO sandbox_swap_pools (network, mint_a, mint_b, amm_key, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (network, mint_a, mint_b) DO NOTHING",
        params: [this.network, a, b, ammKey, now],
      },
      { sql: upsertBalance, params: [this.network, ammKey, a, reserve(a).toString()] },
      { sql: upsertBalance, params: [this.network, ammKey, b, reserve(b).toString()] },
    ]);
  }
}
