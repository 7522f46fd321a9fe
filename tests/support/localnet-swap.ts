/**
 * The relay's swap path on the fixture pool: the local validator's Jupiter-compatible API
 * through the relay's own client, and a SolanaChain that relays swaps into its cp-swap venue.
 */
import { JupiterSwapApi } from "../../src-server/adapters/swap-jupiter/jupiter-api";
import { SolanaChain, type SwapInstructionsSource } from "../../src-server/adapters/chain-solana/solana-chain";
import { JUPITER_V6_PROGRAM_ID } from "../../src-server/adapters/chain-solana/swap-guard";
import { CP_SWAP_PROGRAM_ID } from "../../src-localnet/programs/cp-swap-client";
import { TEST_TIMING, type FixturePool } from "./localnet-pool";

/** The validator's constant-product swap program: the venue behind its Jupiter API. */
export const CP_SWAP = CP_SWAP_PROGRAM_ID;

/** The validator's Jupiter API; `maxAccounts` as a relay quotes it (left out: the client's default). */
export const localJupiter = (pool: FixturePool, maxAccounts?: number): JupiterSwapApi =>
  new JupiterSwapApi({
    baseUrl: pool.validator.jupiterUrl,
    apiKey: null,
    timeoutMs: 5_000,
    restrictIntermediateTokens: true,
    ...(maxAccounts === undefined ? {} : { maxAccounts }),
  });

export interface SwapChainOptions {
  swapInstructions: SwapInstructionsSource;
  /** The relay's lookup tables (networks.<n>.solana.lookupTables). */
  lookupTables?: string[];
  /** The route programs the relay allows; left out: Jupiter's and the cp-swap venue. */
  swapPrograms?: string[];
  log?: (line: string) => void;
}

/** A SolanaChain on the fixture pool (fees may exceed the relay fee: allowLoss) relaying swaps from `swapInstructions`. */
export function swapChain(pool: FixturePool, opts: SwapChainOptions): Promise<SolanaChain> {
  const network = pool.network({ allowLoss: true, ...(opts.lookupTables ? { lookupTables: opts.lookupTables } : {}) });
  return SolanaChain.connect("devnet", network, pool.relayer, pool.hasher, opts.log ?? (() => {}), {
    rpc: pool.rpc,
    swapInstructions: opts.swapInstructions,
    swapPrograms: opts.swapPrograms ?? [JUPITER_V6_PROGRAM_ID, CP_SWAP],
    timing: TEST_TIMING,
  });
}
