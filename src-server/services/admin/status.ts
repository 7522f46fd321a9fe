import { createHash } from "node:crypto";
import type { AdminCluster, AdminHealth, AdminKeyFingerprint, AdminNetworkProgram, AdminSettings } from "../../../src-shared/api/admin";
import { NETWORKS, type Network } from "../../../src-shared/networks";
import { redactUrl } from "../../../src-shared/redact-url";
import type { RelayConfig } from "../../config/schema";
import type { ChainBackend } from "../../ports/chain";
import type { ConsoleStore } from "../../ports/console-store";
import type { Coordination } from "../../ports/coordination";
import type { SandboxFaults } from "./sandbox-faults";
import type { OperatorToken } from "./operator-token";
import type { FeeSchedule } from "../fee-schedule";
import type { PauseService } from "./pause-service";
import type { HealthService } from "../health";
import type { IndexerService } from "../indexer";

/** A key the relay holds, as the console may show it: public half and fingerprint. */
export interface HeldKey {
  name: string;
  purpose: string;
  publicKey: Uint8Array;
  address: string;
  /** Where it is kept, when not in the relay's own secret store (an operator's keypair file). */
  storage?: string;
}

export interface AdminStatusDeps {
  config: RelayConfig;
  store: ConsoleStore;
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  health: HealthService;
  pauses: PauseService;
  fees: FeeSchedule;
  faults: SandboxFaults;
  operatorToken: OperatorToken;
  /** Every key pair the relay holds (relayer, compliance, ...). */
  keys(): HeldKey[];
  keyStorage: string;
  storeStats(): { failure: Error | null; journalBytes: number; writes: number; fsyncs: number; lastSnapshotAt: number | null; snapshotMs: number | null };
  inFlightRelays(): number;
  rateLimitStats(): { endpoint: string; hits: number; refusals: number }[];
  version: string;
  startedAt: number;
  /** The instances sharing the store and who follows each network (the Health page's Instances panel). */
  cluster: { engine: "sqljs" | "postgres"; coordination: Coordination; staleMs: number };
  /** Solana networks running on the development verifying key (config/verifying-key.ts). */
  developmentKeyNetworks?: readonly Network[];
  /** A solana network's deployed program as the program guard last checked it (services/program-guard.ts). */
  program?: (network: Network) => AdminNetworkProgram | null;
  now?: () => number;
}

export const keyFingerprint = (publicKey: Uint8Array): string => createHash("sha256").update(publicKey).digest("hex").slice(0, 16);

const programOf = (d: AdminStatusDeps, network: Network): { program?: AdminNetworkProgram } => {
  const p = d.program?.(network);
  return p ? { program: p } : {};
};

/**
 * The instances sharing the store (this one first) and who follows each network: an instance
 * follows a network while it holds that network's lease, not run out. On PostgreSQL the times are
 * the database's clock and `now` the instance's; a lease renewed every few seconds keeps a margin
 * far above the skew of two synchronized clocks.
 */
export async function clusterView(cluster: AdminStatusDeps["cluster"], now: number): Promise<AdminCluster> {
  const { engine, coordination, staleMs } = cluster;
  const [instances, leases] = await Promise.all([coordination.instances(staleMs), coordination.leases()]);
  const self = coordination.instanceId;
  const follows = (id: string): Network[] => leases.filter((l) => l.holder === id && l.leaseUntil > now).map((l) => l.network);
  return {
    engine,
    self,
    instances: instances
      .map((i) => ({
        id: i.id,
        host: i.host,
        pid: i.pid,
        version: i.version,
        startedAt: i.startedAt,
        heartbeatAt: i.heartbeatAt,
        self: i.id === self,
        follows: follows(i.id),
      }))
      .sort((a, b) => Number(b.self) - Number(a.self)),
    leases: leases.map((l) => ({ network: l.network, holder: l.holder, epoch: l.epoch, leaseUntil: l.leaseUntil })),
  };
}

/** Health in depth and the settings in force, for the console. Never a secret. */
export class AdminStatus {
  private readonly now: () => number;

  constructor(private readonly deps: AdminStatusDeps) {
    this.now = deps.now ?? Date.now;
  }

  async healthDetail(): Promise<AdminHealth> {
    const d = this.deps;
    const report = await d.health.report();
    const indexer = await Promise.all(
      d.indexer.list().map(async (p) => {
        let chainNextIndex: number | null = null;
        if (!d.faults.isChainDown(p.network)) {
          try {
            chainNextIndex = (await d.chains.get(p.network)?.treeAccount(p.mint))?.nextIndex ?? null;
          } catch {
            chainNextIndex = null;
          }
        }
        return {
          network: p.network,
          mint: p.mint,
          nextIndex: p.tree.nextIndex,
          chainNextIndex,
          lag: chainNextIndex === null ? null : Math.max(0, chainNextIndex - p.tree.nextIndex),
          drift: p.drift,
        };
      }),
    );
    const stats = d.storeStats();
    return {
      status: report.status,
      checks: report.checks,
      uptimeSec: Math.floor((this.now() - d.startedAt) / 1000),
      version: d.version,
      networks: [...d.chains.values()].map((c) => ({
        name: c.network,
        backend: c.kind,
        sandbox: c.kind === "sandbox",
        programId: d.config.networks[c.network].programId,
        faults: d.faults.isSandbox(c.network) ? { chainDown: d.faults.isChainDown(c.network) } : null,
        rpcEndpoints: c.rpcEndpoints ? c.rpcEndpoints() : null,
        developmentVerifyingKey: d.developmentKeyNetworks?.includes(c.network) ?? false,
        ...programOf(d, c.network),
      })),
      store: {
        ok: !stats.failure,
        failure: stats.failure ? stats.failure.message : null,
        journalBytes: stats.journalBytes,
        writes: stats.writes,
        fsyncs: stats.fsyncs,
        lastSnapshotAt: stats.lastSnapshotAt,
        snapshotMs: stats.snapshotMs,
      },
      indexer,
      relays: { inFlight: d.inFlightRelays(), lastDay: await d.store.relayCounts({ from: this.now() - 86_400_000 }) },
      rateLimits: d.rateLimitStats(),
      pauses: d.pauses.list(),
      cluster: await clusterView(d.cluster, this.now()),
    };
  }

  /** The fees in force (config under the operator's changes) and each network's fee receiver. */
  feeSettings(): AdminSettings["fees"] {
    const schedule = this.deps.fees.schedule();
    return {
      default: schedule.default,
      pools: NETWORKS.flatMap((n) => Object.entries(schedule.pools[n]).map(([mint, s]) => ({ network: n, mint, ...s }))),
      graceSec: this.deps.fees.graceSec,
      relayers: NETWORKS.flatMap((n) => {
        const chain = this.deps.chains.get(n);
        return chain ? [{ network: n, address: chain.feePayer }] : [];
      }),
    };
  }

  settings(): AdminSettings {
    const { config: c } = this.deps;
    const keys: AdminKeyFingerprint[] = this.deps.keys().map((k) => ({
      name: k.name,
      purpose: k.purpose,
      publicKey: k.address,
      fingerprint: keyFingerprint(k.publicKey),
      storage: k.storage ?? this.deps.keyStorage,
    }));
    keys.push({
      name: "operator-token",
      purpose: "signs in to this console and the admin API",
      publicKey: null,
      fingerprint: this.deps.operatorToken.fingerprint,
      storage:
        this.deps.operatorToken.source === "configured"
          ? "configuration (RELAY_OPERATOR_TOKEN or the desktop keychain); held as a salted hash"
          : `salted hash only, ${this.deps.keyStorage}`,
    });
    return {
      networks: NETWORKS.map((n) => {
        const net = c.networks[n];
        return {
          name: n,
          enabled: net.enabled,
          backend: net.backend,
          sandbox: net.backend === "sandbox",
          programId: net.programId,
          pools: [
            ...new Set([
              ...net.pools,
              ...this.deps.indexer
                .list()
                .filter((p) => p.network === n)
                .map((p) => p.mint),
            ]),
          ],
          rpcUrl: net.rpcUrl ? redactUrl(net.rpcUrl) : null,
        };
      }),
      fees: this.feeSettings(),
      limits: {
        rateLimitsEnabled: c.rateLimits.enabled,
        windowSec: c.rateLimits.windowSec,
        perEndpoint: { ...c.rateLimits.perEndpoint },
        bodyLimitBytes: c.http.bodyLimitBytes,
        tokenTtlSec: c.auth.tokenTtlSec,
        requireRelayAuth: c.auth.requireRelayAuth,
      },
      retentionDays: c.console.retentionDays,
      keys,
      operatorToken: { source: this.deps.operatorToken.source, fingerprint: this.deps.operatorToken.fingerprint },
      pauses: this.deps.pauses.list(),
    };
  }
}
