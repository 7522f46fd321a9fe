/**
 * Instances on one store must present one relay to clients: the same compliance key (clients
 * check its signatures against GET /compliance/public_key, whichever instance answers) and, per
 * network, the same relayer (withdrawal proofs are bound to it, GET /fees publishes it). The
 * first instance records them; one started with other keys stops before it listens.
 */
import type { Network } from "../../src-shared/networks";
import { ConfigError } from "../config/config-error";
import type { Coordination } from "../ports/coordination";

export async function checkSharedKeys(
  coordination: Pick<Coordination, "claim">,
  keys: { compliance: string; relayers: ReadonlyMap<Network, string> },
): Promise<void> {
  const compliance = await coordination.claim("compliance key", keys.compliance);
  if (compliance.value !== keys.compliance) {
    throw new ConfigError(
      "keys/compliance.json",
      `this instance's compliance key ${keys.compliance} is not the one the instances on this database use (${compliance.value}, first recorded by ${compliance.by}): copy <dataDir>/keys/compliance.json from one of them (docs/scale-out.md)`,
    );
  }
  for (const [network, relayer] of keys.relayers) {
    const shared = await coordination.claim(`${network} relayer`, relayer);
    if (shared.value !== relayer) {
      throw new ConfigError(
        `networks.${network}.solana.relayerKeypairPath`,
        `this instance's relayer ${relayer} is not the one the instances on this database use on ${network} (${shared.value}, first recorded by ${shared.by}): proofs are bound to one relayer; give every instance the same keypair file (docs/scale-out.md)`,
      );
    }
  }
}
