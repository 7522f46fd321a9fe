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
  readonly relay: RelayProcess;
  stop(): Promise<void>;
}

export type HarnessFactory = (env?: Record<string, string>) => Promise<RelayHarness>;

export const DEFAULT_TEST_PROGRAM_ID = "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ";

export const sandboxHarness: HarnessFactory = async (env = {}) => {
  const relay = await startRelay(env);
  return {
    backend: "sandbox",
    url: relay.url,
    network: "mainnet",
    chain: sandboxTestChain(relay.url, "mainnet"),
    programId: DEFAULT_TEST_PROGRAM_ID,
    relay,
    stop: async () => {
      await relay.stop();
      relay.cleanup();
    },
  };
};
