import pkg from "../../package.json" with { type: "json" };
import path from "node:path";
import type { Network } from "../../src-shared/networks";
import { FileSecretStore } from "../adapters/keys/file-secret-store";
import { loadOrCreateSigner } from "../adapters/keys/stored-signer";
import type { RelayLogger } from "../adapters/log-pino/relay-logger";
import type { ReloadingSanctionsList } from "../adapters/sanctions-file/sanctions-list";
import type { DurableDb } from "../adapters/storage-sqljs/durable-db";
import type { DeferredVerifier } from "../adapters/verifier-groth16/deferred-verifier";
import { MemoizingVerifier } from "../adapters/verifier-groth16/memoizing-verifier";
import type { RelayConfig } from "../config/schema";
import type { RelayApp } from "../http/app";
import type { ChainBackend } from "../ports/chain";
import type { ComplianceLog } from "../ports/compliance-log";
import type { RelayStore } from "../ports/relay-store";
import type { RevertStore } from "../ports/revert-store";
import type { Stores } from "../ports/stores";
import type { SecretStore } from "../ports/secret-store";
import type { SwapVenue } from "../ports/swap-venue";
import type { HealthService } from "../services/health";
import type { ChainFollower } from "../services/chain-follower";
import type { FollowerElection } from "../services/follower-election";
import type { IndexerService } from "../services/indexer";
import type { SanctionsOverrides } from "../services/sanctions-overrides";
import { SwapRoutingService } from "../services/swap-routing";
import { TeardownStack } from "../teardown";
import { connectChains, swapVenuesOf } from "./chains";
import { prepareConsoleAdmin } from "./console-admin";
import { healthChecks } from "./health-checks";
import { startIndexing } from "./indexing";
import { Ops } from "./ops";
import { attachOps } from "./ops-sources";
import { checkVerifyingKeys, startProgramGuard } from "./program-check";
import { relayApp } from "./relay-app";
import { relayServices } from "./relay-services";
import { checkSharedKeys } from "./shared-keys";
import { sharedSettings, startSettingsRefresh } from "./shared-settings";
import { loadSanctionsMeanwhile } from "./sanctions";
import { liveInstances, startOrphanSweep } from "./instances";
import { openStorage } from "./storage";

export interface Relay extends RelayApp {
  chains: ReadonlyMap<Network, ChainBackend>;
  relayStore: RelayStore;
  health: HealthService;
  meta: { version: string };
  /** Every store the relay has (one engine). */
  stores: Stores;
  /** The sql.js database under `stores`, for tests that read it directly. */
  db?: DurableDb;
  indexer: IndexerService;
  /** Which instance follows each network's chain: roles() per network (leader/reader, epoch, holder), for /health and the console. */
  election: FollowerElection;
  /** Each followed pool's sync state, with this instance's role on its network (stats()). */
  follower: ChainFollower;
  sanctions: ReloadingSanctionsList;
  sanctionsOverrides: SanctionsOverrides;
  complianceLog: ComplianceLog;
  revertStore: RevertStore;
  /** Each network's swap venue (/jupiter and relay_swap); tests wrap one to act between quote and execution. */
  swapVenues: ReadonlyMap<Network, SwapVenue>;
  close(): Promise<void>;
}

/** Headless: <dataDir>/keys/*.json, mode 0600; the desktop host passes a safeStorage-backed store. */
function loadKeys(config: RelayConfig, given: SecretStore | undefined, log: (line: string) => void) {
  const secrets = given ?? new FileSecretStore(path.join(config.dataDir, "keys"));
  const relayer = loadOrCreateSigner(secrets, "relayer");
  log(`relayer: ${relayer.address}`);
  const complianceKey = loadOrCreateSigner(secrets, "compliance");
  log(`compliance key: ${complianceKey.address} (ed25519, GET /compliance/public_key)`);
  return { secrets, relayer, complianceKey };
}

/** Bundled into the build, so it holds wherever the code runs from (Electron's out/ too). */
export function packageVersion(): string {
  return pkg.version;
}

/** The start-up steps after which {@link ComposeOptions.afterStep} is called, in order. */
export const START_STEPS = ["store", "chains", "indexer", "follower", "sanctions", "reconcile", "retention", "ops"] as const;
export type StartStep = (typeof START_STEPS)[number];

export interface ComposeOptions {
  consoleDir?: string;
  log: (line: string) => void;
  secrets?: SecretStore;
  /** Structured lines (startServer's JSON log). */
  logger?: RelayLogger;
  /** Called after each start-up step; a test throws here to fail a start part-way and check that nothing is left running. */
  afterStep?: (step: StartStep) => void | Promise<void>;
}

/**
 * The one place adapters are built and wired to services and HTTP. Every
 * resource registers its closer on one teardown stack as it is created: a
 * start that throws part-way and `close()` unwind that same stack.
 */
export async function composeRelay(config: RelayConfig, opts: ComposeOptions): Promise<Relay> {
  const stack = new TeardownStack(opts.log);
  try {
    return await compose(config, opts, stack);
  } catch (e) {
    // Each closer's own failure is logged; the start's error is the one to report.
    await stack.close().catch(() => {});
    throw e;
  }
}

/**
 * The verifier's workers boot once the start's own work is done, not beside it: their boot (a V8 isolate, mcl-wasm's init
 * and the key's checks, TurboFan on mcl's hot functions; ~0.2 s of CPU) shared two cores with it. Behind the callbacks
 * that follow (index.ts listens in them), so the relay listens first; a proof that comes sooner boots them and waits.
 */
function bootAfterStart(verifier: DeferredVerifier): void {
  setImmediate(() => void verifier.boot().catch(() => {}));
}

async function compose(config: RelayConfig, opts: ComposeOptions, stack: TeardownStack): Promise<Relay> {
  const { log } = opts;
  const step = async (name: StartStep): Promise<void> => void (await opts.afterStep?.(name));
  // docs/security.md: the development key's warnings, and what the deployed program must hash to.
  const keyCheck = checkVerifyingKeys(config, log);
  // Metrics, alerts and the relay-state events (ops.ts; docs/operations.md).
  const ops = new Ops(config, log, opts.logger ?? null);
  const version = packageVersion();
  const { db, stores, hasher, verifierPool } = await openStorage(config, log, stack, version);
  await step("store");
  const { secrets, relayer, complianceKey } = loadKeys(config, opts.secrets, log);

  const verifier = new MemoizingVerifier(verifierPool);
  // Its first read waits 200 ms for the file to sit still (adapters/sanctions-file/file-source.ts): it loads meanwhile.
  const sanctionsLoading = loadSanctionsMeanwhile(config, stores.sanctionsOverrides, log, stack);
  const connected = await connectChains({ config, db, hasher, relayer, verifier, ops, log, stack });
  const { programIds, chains, sandboxes, solanaNetworks } = connected;
  await checkSharedKeys(stores.coordination, { compliance: complianceKey.address, relayers: new Map([...chains].map(([n, c]) => [n, c.feePayer])) });
  const guard = await startProgramGuard({
    config,
    expectation: keyCheck.expectation,
    programs: connected.programs,
    onChange: () => ops.alertNow(),
    log,
    stack,
  });
  await step("chains");
  const swapVenues = swapVenuesOf(config, sandboxes);
  const swaps = new SwapRoutingService(swapVenues, config.swap);
  const { developmentKeyNetworks } = keyCheck;
  const sandboxNetworks = new Set(sandboxes.keys());
  const admin = await prepareConsoleAdmin({ config, store: stores.console, db, secrets, sandboxNetworks, developmentKeyNetworks, log });

  // One instance per network follows the chain; several instances on one store each read the operator's settings again.
  const { election, indexer, follower } = await startIndexing({ stores, chains, connected, hasher, log, stack, step });
  const sanctions = await sanctionsLoading;
  await step("sanctions");
  startSettingsRefresh(stores, sharedSettings(admin, sanctions.list), log, stack);

  const services = relayServices({ config, stores, hasher, indexer, chains, verifier, sanctions, complianceKey, admin, guard, swaps, ops, log });
  await services.relay.reconcileInterrupted(await liveInstances(stores));
  startOrphanSweep(services.relay, stores, log, stack);
  await step("reconcile");

  const health = healthChecks({
    stores,
    chains,
    sandboxes,
    admin,
    indexer,
    follower: solanaNetworks.size ? follower : null,
    election,
    sanctions: sanctions.list,
    guard,
    verifier: verifierPool,
  });
  const app = relayApp({
    config,
    ...(opts.consoleDir ? { consoleDir: opts.consoleDir } : {}),
    version,
    services,
    indexer,
    swaps,
    chains,
    sandboxes,
    programIds,
    health,
    admin,
    ops,
    relayer,
    complianceKey,
    sanctions,
    complianceLog: stores.compliance,
    guard,
    // In memory on sql.js (one process); shared in PostgreSQL, one round trip per request.
    limitCounter: stores.limits,
    log,
  });
  stack.defer("retention job", () => admin.retention.stop());
  await admin.retention.start();
  await step("retention");
  const sources = {
    db,
    alerts: stores.alerts,
    verifierPool,
    indexer,
    follower,
    chains,
    limits: app.limits,
    relay: services.relay,
    faults: admin.faults,
    health,
    sanctions,
    guard,
    version,
  };
  await attachOps(ops, sources, stack);
  await step("ops");
  bootAfterStart(verifierPool);

  return {
    ...app,
    meta: { version },
    health,
    chains,
    relayStore: services.relayStore,
    stores,
    ...(db ? { db } : {}),
    indexer,
    election,
    follower,
    sanctions: sanctions.list,
    sanctionsOverrides: sanctions.overrides,
    complianceLog: stores.compliance,
    revertStore: services.revertStore,
    swapVenues,
    close: () => stack.close(),
  };
}
