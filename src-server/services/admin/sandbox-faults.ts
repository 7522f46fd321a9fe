import type { AdminFault } from "../../../src-shared/api/admin";
import type { Network } from "../../../src-shared/networks";
import type { HealthCheck } from "../../ports/chain";

/**
 * Fault switches for sandbox networks (never a real chain): `chainDown` makes
 * the network's chain check fail as an unreachable backend would, so operators
 * and the e2e suite can watch /health and the console turn red and recover.
 */
export class SandboxFaults {
  private readonly down = new Set<Network>();
  private readonly feePayer = new Map<Network, bigint>();

  constructor(private readonly sandboxNetworks: ReadonlySet<Network>) {}

  isSandbox(network: Network): boolean {
    return this.sandboxNetworks.has(network);
  }

  set(network: Network, chainDown: boolean): AdminFault[] {
    if (!this.isSandbox(network)) throw new Error(`${network} is not a sandbox network`);
    if (chainDown) this.down.add(network);
    else this.down.delete(network);
    return this.list();
  }

  /**
   * The fee-payer drill: a sandbox fee payer pays no network fees, so its
   * balance is simulated here (null ends the drill); metrics and the runway
   * alert read it as they read a real fee payer's balance.
   */
  setFeePayerLamports(network: Network, lamports: bigint | null): AdminFault[] {
    if (!this.isSandbox(network)) throw new Error(`${network} is not a sandbox network`);
    if (lamports === null) this.feePayer.delete(network);
    else this.feePayer.set(network, lamports);
    return this.list();
  }

  /** The simulated fee-payer balance, or null when no drill runs. */
  feePayerLamports(network: Network): bigint | null {
    return this.feePayer.get(network) ?? null;
  }

  list(): AdminFault[] {
    return [...this.sandboxNetworks].map((network) => ({
      network,
      chainDown: this.down.has(network),
      feePayerLamports: this.feePayer.get(network)?.toString() ?? null,
    }));
  }

  isChainDown(network: Network): boolean {
    return this.down.has(network);
  }

  /** Wraps a chain's health source: while the fault is on, the check fails instead of asking the chain. */
  guard(network: Network, source: () => Promise<HealthCheck[]>): () => Promise<HealthCheck[]> {
    return async () =>
      this.down.has(network) ? [{ name: `chain:${network}`, ok: false, detail: "sandbox chain unreachable (fault injected by the operator)" }] : source();
  }
}
