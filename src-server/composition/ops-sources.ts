/** What the metrics, the fee-payer watch and the alerts read (ops.ts), gathered from the started relay for the composition root (compose-relay.ts). */
import type { Network } from "../../src-shared/networks";
import type { DurableDb } from "../adapters/storage-sqljs/durable-db";
import type { RateLimits } from "../http/middleware/rate-limit";
import type { AlertStore } from "../ports/alert-store";
import type { ChainBackend } from "../ports/chain";
import type { SandboxFaults } from "../services/admin/sandbox-faults";
import type { ChainFollower } from "../services/chain-follower";
import type { HealthService } from "../services/health";
import type { IndexerService } from "../services/indexer";
import type { ProgramGuard } from "../services/program-guard";
import type { RelayService } from "../services/relay-service";
import { poolLag } from "./indexing";
import type { Ops, OpsSources } from "./ops";
import type { TeardownStack } from "../teardown";
import type { Sanctions } from "./sanctions";

export type OpsSourceDeps = Parameters<typeof opsSources>[0];

/**
 * The last start step: the metrics collectors, the fee-payer watch and the alerts read the
 * started relay (closed first on the way down), and /health counts the rate limits' refusals.
 */
export async function attachOps(ops: Ops, deps: OpsSourceDeps, stack: TeardownStack): Promise<void> {
  stack.defer("metrics, fee-payer watch and alerts", () => ops.close());
  await ops.attach(opsSources(deps));
  deps.health.add("rate-limits", () => {
    const refused = deps.limits.stats().reduce((s, x) => s + x.refusals, 0);
    return [{ name: "rate-limits", ok: true, detail: `${refused} requests refused since start` }];
  });
}

export function opsSources(deps: {
  db: DurableDb | null;
  alerts: AlertStore;
  verifierPool: { readonly pending: number };
  indexer: IndexerService;
  follower: ChainFollower;
  chains: ReadonlyMap<Network, ChainBackend>;
  limits: RateLimits;
  relay: RelayService;
  faults: SandboxFaults;
  health: HealthService;
  sanctions: Sanctions;
  guard: ProgramGuard | null;
  version: string;
}): OpsSources {
  const { chains, guard } = deps;
  const lag = (): ReturnType<typeof poolLag> => poolLag(deps.indexer, deps.follower);
  return {
    db: deps.db,
    alerts: deps.alerts,
    verifierQueueDepth: () => deps.verifierPool.pending,
    indexer: () => lag().map((p) => ({ ...p, drift: p.drift !== null })),
    rpcEndpoints: () => [...chains.values()].flatMap((c) => (c.rpcEndpoints ? c.rpcEndpoints().map((e) => ({ network: c.network, ...e })) : [])),
    rateLimits: () => deps.limits.stats(),
    relayRejections: () => deps.relay.rejections.counts(),
    // A solana fee payer's balance from its RPC; a sandbox one only during the operator's drill (admin faults).
    feePayerBalances: new Map(
      [...chains.values()].map(
        (c) => [c.network, c.feePayerLamports ? () => c.feePayerLamports!() : async () => deps.faults.feePayerLamports(c.network)] as const,
      ),
    ),
    health: deps.health,
    sanctions: () => deps.sanctions.list.status(),
    ...(guard ? { programs: () => guard.refusals() } : {}),
    indexerLag: () => lag().map(({ network, mint, lagSec, lagDeposits, drift }) => ({ network, mint, lagSec, lagDeposits, drift })),
    version: deps.version,
  };
}
