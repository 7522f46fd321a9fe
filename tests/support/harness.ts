import type { Network } from "../../src-shared/networks";
import { startRelay, type RelayProcess } from "./relay-process";
import { sandboxTestChain, type TestChain } from "./test-chain";

/**
 * A running relay and the chain behind its `mainnet` network. The shared HTTP
 * suites (tests/http/suites) run once per backend: the embedded sandbox, and a
 * solana network pointed at the local validator (tests/support/localnet.ts).
 */
export interface RelayHarness {
  readonly backend: "sandbox" | "solana";
  readonly url: string;
  readonly network: Network;
  readonly chain: TestChain;
  readonly programId: string;
  /** The relay process now running (restart replaces it). */
  readonly relay: RelayProcess;
  /** Stops the relay (SIGTERM) and starts it again on the same data dir and settings; the chain keeps running. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export type HarnessFactory = (env?: Record<string, string>) => Promise<RelayHarness>;

export const DEFAULT_TEST_PROGRAM_ID = "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ";

/** A harness over a relay process; `start` (re)starts it on a data dir. */
export function relayHarness(
  backend: RelayHarness["backend"],
  first: RelayProcess,
  start: (dataDir: string) => Promise<RelayProcess>,
  chainFor: (url: string) => TestChain,
  programId: string,
  onStop: () => Promise<void> = async () => {},
): RelayHarness {
  let relay = first;
  // The relay's port may change on restart (RELAY_PORT=0); the chain helper follows it.
  let chain = chainFor(relay.url);
  return {
    backend,
    get url() {
      return relay.url;
    },
    network: "mainnet",
    get chain() {
      return chain;
    },
    programId,
    get relay() {
      return relay;
    },
    restart: async () => {
      await relay.stop();
      relay = await start(relay.dataDir);
      chain = chainFor(relay.url);
    },
    stop: async () => {
      await relay.stop();
      relay.cleanup();
      await onStop();
    },
  };
}

export const sandboxHarness: HarnessFactory = async (env = {}) => {
  const relay = await startRelay(env);
  return relayHarness(
    "sandbox",
    relay,
    (dir) => startRelay(env, dir),
    (url) => sandboxTestChain(url, "mainnet"),
    DEFAULT_TEST_PROGRAM_ID,
  );
};
