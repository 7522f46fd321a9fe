/**
 * One Solana network, connected for chains.ts: its RPC failover (the probes' closer on
 * the root's teardown stack), chain backend, pool subscriber and deployed-program source.
 * A module of its own so that chains.ts imports it only when a network is `solana`:
 * everything here loads @solana/web3.js.
 */
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import type { Network } from "../../src-shared/networks";
import { readKeypairFile, type Signer } from "../../src-shared/node/keypair-file";
import { solanaPoolSubscriber, type MintSubscribe } from "../adapters/chain-solana/follower-subscribe";
import { solanaProgramSource } from "../adapters/chain-solana/program-data";
import { createFailoverRpc } from "../adapters/chain-solana/rpc-failover";
import { SolanaChain } from "../adapters/chain-solana/solana-chain";
import { JupiterSwapApi } from "../adapters/swap-jupiter/jupiter-api";
import type { RelayConfig } from "../config/schema";
import type { DeployedProgramSource } from "../ports/deployed-program";
import type { TeardownStack } from "../teardown";
import type { Ops } from "./ops";

/** Starts only when its RPC answers and the program is deployed (docs/solana.md). */
export async function connectSolanaNetwork(deps: {
  network: Network;
  config: RelayConfig;
  relayer: Signer;
  hasher: FieldHasher;
  ops: Ops;
  log: (line: string) => void;
  stack: TeardownStack;
}): Promise<{ chain: SolanaChain; subscriber: MintSubscribe; program: DeployedProgramSource }> {
  const { network: n, config, relayer, hasher, ops, log, stack } = deps;
  const net = config.networks[n];
  // Its fee payer: the operator's keypair file, refused when others can read it (only its address is logged).
  const signer = net.solana.relayerKeypairPath ? readKeypairFile(net.solana.relayerKeypairPath) : relayer;
  // Every configured endpoint behind one failover (healthiest first, broadcast of transactions).
  const rpc = createFailoverRpc({
    rpcUrls: net.rpcUrls,
    wsUrl: net.wsUrl,
    commitment: net.solana.commitment,
    rpcTimeoutMs: net.solana.rpcTimeoutMs,
    rpcProbeMs: net.solana.rpcProbeMs,
    maxSlotLag: net.solana.maxSlotLag,
    log: (line) => log(`${n}: ${line}`),
    onRequest: ops.rpcRequest(n),
  });
  stack.defer(`${n} RPC probes`, () => rpc.close());
  // relay_swap lands the withdrawal and Jupiter's swap in one transaction: the chain asks Jupiter for the swap's instructions.
  const chain = await SolanaChain.connect(n, net, signer, hasher, log, {
    rpc,
    swapInstructions: new JupiterSwapApi(config.jupiter),
    swapPrograms: config.jupiter.programIds,
  });
  return {
    chain,
    subscriber: solanaPoolSubscriber(rpc, { programId: net.programId, commitment: net.solana.commitment, log }),
    program: solanaProgramSource(rpc, net.programId, net.solana.commitment),
  };
}
