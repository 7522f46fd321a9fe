/**
 * The networks, connected for the composition root (compose-relay.ts): a
 * sandbox chain over the store, or a Solana cluster behind the RPC failover
 * (its probes' closer on the root's teardown stack), and each network's swap
 * venue.
 */
import { publicKeyBytesOrThrow } from "../../src-shared/encoding/base58";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { NETWORKS, type Network } from "../../src-shared/networks";
import { SandboxChain } from "../adapters/chain-sandbox/sandbox-chain";
import { FrontierLane } from "../adapters/frontier-lane/lane";
import type { MintSubscribe } from "../adapters/chain-solana/follower-subscribe";
import type { Signer } from "../../src-shared/node/keypair-file";
import type { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { JupiterSwapApi, routeMaxAccounts } from "../adapters/swap-jupiter/jupiter-api";
import { SandboxSwapVenue } from "../adapters/swap-sandbox/venue";
import type { Ops } from "./ops";
import { fastPoseidonPlaces } from "./storage";
import { sandboxMinDeposit, type RelayConfig } from "../config/schema";
import type { ChainBackend } from "../ports/chain";
import type { DeployedProgramSource } from "../ports/deployed-program";
import type { SwapVenue } from "../ports/swap-venue";
import type { ProofVerifier } from "../ports/proof-verifier";
import type { FollowedNetwork } from "../services/chain-follower";
import type { TeardownStack } from "../teardown";

export interface Chains {
  programIds: ReadonlyMap<Network, Uint8Array>;
  chains: Map<Network, ChainBackend>;
  sandboxes: Map<Network, SandboxChain>;
  /** The Solana networks the chain follower keeps indexed. */
  solanaNetworks: Map<Network, FollowedNetwork>;
  subscribers: Map<Network, MintSubscribe>;
  /** Each Solana network's deployed pool program, for the program guard (services/program-guard.ts). */
  programs: Map<Network, DeployedProgramSource>;
}

/** Each enabled network's chain, in NETWORKS order; a Solana network that does not answer stops the start. */
export async function connectChains(deps: {
  config: RelayConfig;
  /** The sql.js database the sandbox keeps its chain in; null on PostgreSQL, where config refuses sandbox networks. */
  db: DurableDb | null;
  hasher: FieldHasher;
  relayer: Signer;
  verifier: ProofVerifier;
  ops: Ops;
  log: (line: string) => void;
  stack: TeardownStack;
}): Promise<Chains> {
  const { config, db, hasher, relayer, verifier, ops, log, stack } = deps;
  const programIds = new Map<Network, Uint8Array>(NETWORKS.map((n) => [n, publicKeyBytesOrThrow(config.networks[n].programId)]));
  const chains = new Map<Network, ChainBackend>();
  const sandboxes = new Map<Network, SandboxChain>();
  const solanaNetworks = new Map<Network, FollowedNetwork>();
  const subscribers = new Map<Network, MintSubscribe>();
  const programs = new Map<Network, DeployedProgramSource>();
  // One lane for every sandbox network: their deposits' frontier hashes on another thread (adapters/frontier-lane).
  let lane: FrontierLane | null = null;
  const laneForSandbox = (): FrontierLane => {
    if (!lane) {
      const started = new FrontierLane({ wasmPlaces: fastPoseidonPlaces(config) }, log);
      stack.defer("frontier lane", () => started.close());
      lane = started;
    }
    return lane;
  };
  for (const n of NETWORKS) {
    const net = config.networks[n];
    if (!net.enabled) continue;
    if (net.backend === "solana") {
      // Loaded only for a solana network: it brings @solana/web3.js, which a sandbox-only relay never needs (issue 29: start-up).
      const { connectSolanaNetwork } = await import("./solana-network");
      const solana = await connectSolanaNetwork({ network: n, config, relayer, hasher, ops, log, stack });
      chains.set(n, solana.chain);
      solanaNetworks.set(n, { chain: solana.chain, pollMs: net.solana.pollMs, maxIndexerLagSec: net.solana.maxIndexerLagSec });
      subscribers.set(n, solana.subscriber);
      programs.set(n, solana.program);
      continue;
    }
    // Each pool's minimum deposit (issue 25), from networks.<n>.sandbox; read per deposit, so it is the config's as loaded.
    if (!db) throw new Error(`networks.${n}: a sandbox network needs the embedded sql.js store`);
    const chain = new SandboxChain(n, db, hasher, relayer, programIds.get(n)!, verifier, undefined, laneForSandbox(), (mint) => sandboxMinDeposit(net, mint));
    for (const mint of net.pools) await chain.initializePool(mint);
    chains.set(n, chain);
    sandboxes.set(n, chain);
  }
  return { programIds, chains, sandboxes, solanaNetworks, subscribers, programs };
}

/** A sandbox network swaps in its constant-product pools, a Solana network through Jupiter. */
export function swapVenuesOf(config: RelayConfig, sandboxes: ReadonlyMap<Network, SandboxChain>): Map<Network, SwapVenue> {
  const swapVenues = new Map<Network, SwapVenue>();
  for (const n of NETWORKS) {
    if (!config.networks[n].enabled) continue;
    const sandbox = sandboxes.get(n);
    // The relay's own lookup table leaves room for longer routes in relay_swap's transaction: quote them.
    const maxAccounts = routeMaxAccounts(config.networks[n].solana.lookupTables.length > 0);
    swapVenues.set(n, sandbox ? new SandboxSwapVenue(sandbox.swapPools) : new JupiterSwapApi({ ...config.jupiter, maxAccounts }));
  }
  return swapVenues;
}
