/**
 * The verifying key and the deployed program, checked for the composition root
 * (compose-relay.ts; docs/security.md): the development key's warnings, and the
 * program guard that keeps each Solana network's deployed program the key's.
 */
import type { Network } from "../../src-shared/networks";
import type { RelayConfig } from "../config/schema";
import { checkVerifyingKey, keyExpectation } from "../config/verifying-key";
import type { DeployedProgramSource } from "../ports/deployed-program";
import { ProgramGuard } from "../services/program-guard";
import type { TeardownStack } from "../teardown";

export interface KeyCheck {
  /** Solana networks started on the development verifying key (the console's red banner). */
  developmentKeyNetworks: Network[];
  /** What the deployed program must hash to; null without a Solana network. */
  expectation: ReturnType<typeof keyExpectation>;
}

/**
 * A solana network refuses the development verifying key unless allowed for it; what the
 * deployed program must hash to comes from the files alone, so a bad transcript stops the
 * start before any RPC.
 */
export function checkVerifyingKeys(config: RelayConfig, log: (line: string) => void): KeyCheck {
  const developmentKeyNetworks = checkVerifyingKey(config);
  for (const n of developmentKeyNetworks) {
    log(
      `WARNING: ${n} (solana) verifies proofs with the DEVELOPMENT verifying key ${config.verifier.vkeyPath} (published seed: anyone can forge proofs); ` +
        `allowed by networks.${n}.allowDevelopmentVerifyingKey: never for real funds`,
    );
  }
  return { developmentKeyNetworks, expectation: keyExpectation(config) };
}

/**
 * The deployed program is the key's, whole (services/program-guard.ts): a refusal stops the
 * start, a later upgrade stops that network's relays. None without a Solana network.
 */
export async function startProgramGuard(deps: {
  config: RelayConfig;
  expectation: KeyCheck["expectation"];
  programs: ReadonlyMap<Network, DeployedProgramSource>;
  /** A network stopped or resumed (the alerts evaluate at once). */
  onChange: () => void;
  log: (line: string) => void;
  stack: TeardownStack;
}): Promise<ProgramGuard | null> {
  const { config, expectation, programs } = deps;
  if (!expectation || !programs.size) return null;
  const guard = new ProgramGuard({
    expectation,
    networks: [...programs].map(([n, source]) => {
      const net = config.networks[n];
      return {
        network: n,
        programId: net.programId,
        allowDevelopmentVerifyingKey: net.allowDevelopmentVerifyingKey ?? false,
        production: net.production ?? false,
        trustedUpgradeAuthorities: net.trustedUpgradeAuthorities ?? [],
        watchMs: net.solana.programWatchMs,
        source,
      };
    }),
    log: deps.log,
    onChange: deps.onChange,
  });
  deps.stack.defer("program guard", () => guard.stop());
  await guard.check();
  guard.watch();
  return guard;
}
