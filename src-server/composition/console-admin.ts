import type { AdminNetworkProgram } from "../../src-shared/api/admin";
import { publicKeyBytesOrThrow } from "../../src-shared/encoding/base58";
import type { Network } from "../../src-shared/networks";
import type { DurableDb } from "../adapters/storage-sqljs/durable-db";
import type { RelayConfig } from "../config/schema";
import type { AlertsConsole } from "../http/routes/admin/alerts";
import type { AdminRouteDeps } from "../http/routes/admin/index";
import type { RelayLogLines } from "../http/routes/admin/relays";
import type { ChainBackend } from "../ports/chain";
import type { ConsoleStore } from "../ports/console-store";
import type { SandboxLedger } from "../ports/sandbox-ledger";
import type { SecretStore } from "../ports/secret-store";
import type { Stores } from "../ports/stores";
import { SandboxFaults } from "../services/admin/sandbox-faults";
import { AdminMoneyService } from "../services/admin/money-service";
import { OperatorToken, operatorTokenNotice } from "../services/admin/operator-token";
import { PauseService } from "../services/admin/pause-service";
import { FeeSchedule } from "../services/fee-schedule";
import { AdminPools } from "../services/admin/pools";
import { AdminRelays } from "../services/admin/relays";
import { RetentionJob } from "../services/admin/retention-job";
import { AdminStatus, type HeldKey } from "../services/admin/status";
import { AdminSupport, type AdminSupportDeps } from "../services/admin/support";
import type { HealthService } from "../services/health";
import type { IndexerService } from "../services/indexer";
import type { RejectedRelays } from "../services/relay-rejections";
import { INSTANCE_STALE_MS } from "./instances";

/** PostgreSQL keeps no journal of the relay's: its durability is the database's (docs/scale-out.md). */
const NO_JOURNAL = { failure: null, journalBytes: 0, writes: 0, fsyncs: 0, lastSnapshotAt: null, snapshotMs: null };

export interface ConsoleAdminLate {
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  sandboxes: ReadonlyMap<Network, SandboxLedger>;
  health: HealthService;
  relayer: { address: string; publicKey: Uint8Array };
  /** Other key pairs to fingerprint in Settings (e.g. the compliance key). */
  otherKeys?: () => HeldKey[];
  /** The revert queue and compliance log (support pages). */
  support?: AdminSupportDeps;
  inFlightRelays(): number;
  /** Relays refused before their proof verified (the console's rejected list). */
  rejectedRelays?: RejectedRelays;
  rateLimitStats(): { endpoint: string; hits: number; refusals: number }[];
  nullifierAddress(network: Network, mint: Uint8Array, hash: Uint8Array): string;
  version: string;
  startedAt: number;
  /** A solana network's deployed program check (services/program-guard.ts), for the Health page. */
  program?: (network: Network) => AdminNetworkProgram | null;
  /** The alerts' page and settings (composition/ops.ts). */
  alerts: AlertsConsole;
  relayLog: RelayLogLines;
  /** The instances sharing the store and the follower leases (the Health page's Instances panel). */
  cluster: Pick<Stores, "engine" | "coordination">;
}

export interface ConsoleAdmin {
  operatorToken: OperatorToken;
  pauses: PauseService;
  /** The fees in force: the config's under the operator's run-time changes. */
  fees: FeeSchedule;
  faults: SandboxFaults;
  retention: RetentionJob;
  /** What /admin reads and changes, once the services it reads exist (http/routes/admin, mounted by http/app.ts behind the operator guard). */
  api(late: ConsoleAdminLate): AdminRouteDeps;
}

/**
 * The operator console's server side, wired in two steps: what the relay
 * pipeline and health need first (pause switches, sandbox faults, the
 * operator token), then what the /admin routes read, over the built services.
 */
export async function prepareConsoleAdmin(opts: {
  config: RelayConfig;
  store: ConsoleStore;
  /** The sql.js store's journal and snapshot figures for the Health page. */
  /** The sql.js database, for its journal figures; null on PostgreSQL. */
  db: DurableDb | null;
  secrets: SecretStore;
  sandboxNetworks: ReadonlySet<Network>;
  /** Solana networks started on the development verifying key (the console's red banner). */
  developmentKeyNetworks?: readonly Network[];
  log: (line: string) => void;
}): Promise<ConsoleAdmin> {
  const { config, store, db, secrets, log } = opts;
  const operatorToken = config.operatorToken
    ? OperatorToken.fromConfigured(config.operatorToken)
    : OperatorToken.loadOrCreate(secrets, (token) => operatorTokenNotice(token, config.dataDir).forEach((line) => log(line)));
  log(
    `console: operator token ${operatorToken.source === "configured" ? "from configuration" : "generated earlier (hash in the data dir)"}, fingerprint ${operatorToken.fingerprint}`,
  );
  const pauses = await PauseService.open(store);
  const fees = await FeeSchedule.open(config.fees, store, config.fees.graceSec * 1000);
  const faults = new SandboxFaults(opts.sandboxNetworks);
  const retention = new RetentionJob(store, config.console.retentionDays, log);

  const api = (late: ConsoleAdminLate): AdminRouteDeps => {
    const pools = new AdminPools({ store, indexer: late.indexer, chains: late.chains, pausedReason: (n, m) => pauses.pausedReason(n, m) });
    const relays = new AdminRelays({
      store,
      indexer: late.indexer,
      chains: late.chains,
      nullifierAddress: (n, mint, hash) => late.nullifierAddress(n, publicKeyBytesOrThrow(mint), hash),
      retentionDays: config.console.retentionDays,
      ...(late.rejectedRelays ? { rejected: late.rejectedRelays } : {}),
    });
    const money = new AdminMoneyService({
      store,
      indexer: late.indexer,
      chains: late.chains,
      balanceOf: (n, owner, mint) => late.sandboxes.get(n)?.balance(owner, mint) ?? null,
      ...(late.support ? { reverts: late.support.reverts } : {}),
    });
    const status = new AdminStatus({
      config,
      store,
      indexer: late.indexer,
      chains: late.chains,
      health: late.health,
      pauses,
      fees,
      faults,
      operatorToken,
      keys: () => [
        { name: "relayer", purpose: "signs and pays for withdrawals; receives relay fees", publicKey: late.relayer.publicKey, address: late.relayer.address },
        ...(late.otherKeys?.() ?? []),
      ],
      keyStorage: secrets.protection,
      storeStats: () => (db ? { failure: db.failure, ...db.stats } : NO_JOURNAL),
      inFlightRelays: late.inFlightRelays,
      rateLimitStats: late.rateLimitStats,
      version: late.version,
      startedAt: late.startedAt,
      cluster: { engine: late.cluster.engine, coordination: late.cluster.coordination, staleMs: INSTANCE_STALE_MS },
      ...(opts.developmentKeyNetworks ? { developmentKeyNetworks: opts.developmentKeyNetworks } : {}),
      ...(late.program ? { program: late.program } : {}),
    });
    return {
      tokenSource: operatorToken.source,
      pools,
      relays,
      status,
      pauses,
      fees,
      money,
      faults,
      ...(late.support ? { support: new AdminSupport(late.support) } : {}),
      alerts: late.alerts,
      relayLog: late.relayLog,
    };
  };

  return { operatorToken, pauses, fees, faults, retention, api };
}
