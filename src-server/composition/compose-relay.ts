import pkg from "../../package.json" with { type: "json" };
import path from "node:path";
import { publicKeyBytesOrThrow } from "../../src-shared/encoding/base58";
import type { Network } from "../../src-shared/networks";
import { verifyEd25519Native } from "../../src-shared/node/ed25519-native";
import { nullifierAddress, treeAddress } from "../../src-shared/solana/pda";
import { FileSecretStore } from "../adapters/keys/file-secret-store";
import { loadOrCreateSigner } from "../adapters/keys/stored-signer";
import { SqlAuthStore } from "../adapters/storage-sqljs/auth-store";
import { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { SqlTreeStore } from "../adapters/storage-sqljs/tree-store";
import { SqlRelayStore } from "../adapters/storage-sqljs/relay-store";
import { configuredListSource } from "../adapters/sanctions-file/configured-source";
import { ReloadingSanctionsList } from "../adapters/sanctions-file/sanctions-list";
import { SqlComplianceLog } from "../adapters/storage-sqljs/compliance-log";
import { SqlRevertStore } from "../adapters/storage-sqljs/revert-store";
import { SqlSanctionsStore } from "../adapters/storage-sqljs/sanctions-store";
import { MemoizingVerifier } from "../adapters/verifier-groth16/memoizing-verifier";
import type { RelayConfig } from "../config/schema";
import { checkVerifyingKey, keyExpectation } from "../config/verifying-key";
import { prepareConsoleAdmin } from "./console-admin";
import { connectChains, swapVenuesOf } from "./chains";
import { healthChecks } from "./health-checks";
import { openStorage } from "./storage";
import { Ops } from "./ops";
import type { RelayLogger } from "../adapters/log-pino/relay-logger";
import { createApp, type RelayApp } from "../http/app";
import type { ChainBackend } from "../ports/chain";
import type { ComplianceLog } from "../ports/compliance-log";
import type { RevertStore } from "../ports/revert-store";
import type { RelayStore } from "../ports/relay-store";
import type { SecretStore } from "../ports/secret-store";
import type { SwapVenue } from "../ports/swap-venue";
import { AuthService } from "../services/auth";
import { ComplianceService, recordingSanctionsList } from "../services/compliance";
import { HealthService } from "../services/health";
import { ChainFollower } from "../services/chain-follower";
import { ProgramGuard } from "../services/program-guard";
import { IndexerService } from "../services/indexer";
import { RelayService } from "../services/relay-service";
import { RevertService } from "../services/revert-service";
import { SanctionsOverrides } from "../services/sanctions-overrides";
import { SwapRoutingService } from "../services/swap-routing";
import { TeardownStack } from "../teardown";

export interface Relay extends RelayApp {
  chains: ReadonlyMap<Network, ChainBackend>;
  relayStore: RelayStore;
  health: HealthService;
  meta: { version: string };
  db: DurableDb;
  indexer: IndexerService;
  sanctions: ReloadingSanctionsList;
  sanctionsOverrides: SanctionsOverrides;
  complianceLog: ComplianceLog;
  revertStore: RevertStore;
  /** Each network's swap venue (/jupiter and relay_swap); tests wrap one to act between quote and execution. */
  swapVenues: ReadonlyMap<Network, SwapVenue>;
  close(): Promise<void>;
}

/** Bundled into the build, so it holds wherever the code runs from (Electron's out/ too). */
export function packageVersion(): string {
  return pkg.version;
}

/** The start-up steps after which {@link ComposeOptions.afterStep} is called, in order. */
export const START_STEPS = ["store", "sanctions", "chains", "indexer", "follower", "reconcile", "retention", "ops"] as const;
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

async function compose(config: RelayConfig, opts: ComposeOptions, stack: TeardownStack): Promise<Relay> {
  const { log } = opts;
  const step = async (name: StartStep): Promise<void> => {
    await opts.afterStep?.(name);
  };
  // A solana network refuses the development verifying key unless allowed for it (docs/security.md).
  const developmentKeyNetworks = checkVerifyingKey(config);
  for (const n of developmentKeyNetworks) {
    log(
      `WARNING: ${n} (solana) verifies proofs with the DEVELOPMENT verifying key ${config.verifier.vkeyPath} (published seed: anyone can forge proofs); ` +
        `allowed by networks.${n}.allowDevelopmentVerifyingKey: never for real funds`,
    );
  }
  // What the deployed program must hash to: from the files alone, so a bad transcript stops the start before any RPC.
  const expectation = keyExpectation(config);
  // Metrics, alerts and the relay-state events (ops.ts; docs/operations.md).
  const ops = new Ops(config, log, opts.logger ?? null);
  const { db, hasher, verifierStarting, verifierPool } = await openStorage(config, log, stack);
  await step("store");
  // Headless: <dataDir>/keys/*.json, mode 0600; the desktop host passes a safeStorage-backed store.
  const secrets = opts.secrets ?? new FileSecretStore(path.join(config.dataDir, "keys"));
  const relayer = loadOrCreateSigner(secrets, "relayer");
  log(`relayer: ${relayer.address}`);

  // Listening does not wait for the verifier's workers to boot; a proof waits for them. A key that cannot be read or parsed has failed by now and still stops the start.
  await Promise.race([verifierStarting, Promise.resolve(null)]);
  const verifier = new MemoizingVerifier(verifierPool);
  const sanctionsStore = new SqlSanctionsStore(db);
  const sanctions = new ReloadingSanctionsList({
    source: configuredListSource(config.sanctions, config.dataDir),
    store: sanctionsStore,
    intervalMs: (config.sanctions.url ? config.sanctions.refreshIntervalSec : config.sanctions.filePollSec) * 1000,
    log,
  });
  stack.defer("sanctions refresh", () => sanctions.stop());
  await sanctions.start();
  const listed = sanctions.status();
  log(
    listed.version
      ? `sanctions: ${listed.count} addresses from ${listed.source} (version ${listed.version})`
      : `sanctions: NO LIST LOADED from ${listed.source} (${listed.lastError}); compliance signatures answer 500 and relays fail until one loads`,
  );
  await step("sanctions");
  const sanctionsOverrides = new SanctionsOverrides(sanctionsStore, () => sanctions.reloadOverrides());
  const complianceLog = new SqlComplianceLog(db);
  const complianceKey = loadOrCreateSigner(secrets, "compliance");
  log(`compliance key: ${complianceKey.address} (ed25519, GET /compliance/public_key)`);

  const { programIds, chains, sandboxes, solanaNetworks, subscribers, programs } = await connectChains({
    config,
    db,
    hasher,
    relayer,
    verifier,
    ops,
    log,
    stack,
  });
  // The deployed program is the key's, whole (services/program-guard.ts): a refusal stops the start, a later upgrade stops that network's relays.
  const guard =
    expectation && programs.size
      ? new ProgramGuard({
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
          log,
          onChange: () => ops.alertNow(),
        })
      : null;
  if (guard) {
    stack.defer("program guard", () => guard.stop());
    await guard.check();
    guard.watch();
  }
  await step("chains");
  const swapVenues = swapVenuesOf(config, sandboxes);
  const swaps = new SwapRoutingService(swapVenues, config.swap);

  const admin = prepareConsoleAdmin({ config, db, secrets, sandboxNetworks: new Set(sandboxes.keys()), developmentKeyNetworks, log });

  const treeAddresses = new Map<string, string>();
  const indexer = new IndexerService(
    new SqlTreeStore(db),
    chains,
    hasher,
    (n, mint) => {
      const key = `${n}/${mint}`;
      let a = treeAddresses.get(key);
      if (!a) treeAddresses.set(key, (a = treeAddress(programIds.get(n)!, publicKeyBytesOrThrow(mint))));
      return a;
    },
    log,
  );
  await indexer.start();
  await step("indexer");
  // Solana pools are followed live (logs subscription + polling); the sandbox indexes on each deposit.
  const follower = new ChainFollower({
    indexer,
    networks: solanaNetworks,
    subscribe: (pool, onChange) => subscribers.get(pool.network)!(pool.mint, onChange),
    log,
  });
  stack.defer("chain follower", () => follower.stop());
  await follower.start();
  await step("follower");

  const auth = new AuthService(new SqlAuthStore(db), {
    tokenTtlSec: config.auth.tokenTtlSec,
    maxAgeSec: config.auth.loginMaxAgeSec,
    maxFutureSec: config.auth.loginMaxFutureSec,
    verifySignature: verifyEd25519Native,
  });

  const relayStore = ops.relayStore(new SqlRelayStore(db));
  const relay = new RelayService({
    hasher,
    indexer,
    chains,
    verifier,
    sanctions: recordingSanctionsList(sanctions, complianceLog, log),
    store: relayStore,
    fees: admin.fees,
    // A network whose program is no longer the key's refuses relays as a paused one does (503 RelayPaused, the reason named).
    pauses: guard ? { pausedReason: (n, mint) => guard.refusal(n) ?? admin.pauses.pausedReason(n, mint) } : admin.pauses,
    swaps,
    log,
  });

  await relay.reconcileInterrupted();
  await step("reconcile");

  const compliance = new ComplianceService({
    walletOf: (t) => auth.walletOf(t),
    sanctions,
    key: complianceKey,
    log: complianceLog,
    auditLog: config.compliance.auditLog,
    onDecision: (network, outcome) => ops.metrics.onComplianceSignature(network, outcome),
    logLine: log,
  });
  const revertStore = ops.revertStore(new SqlRevertStore(db));
  const reverts = new RevertService({
    hasher,
    chains,
    walletOf: (t) => auth.walletOf(t),
    store: revertStore,
    verifySignature: verifyEd25519Native,
    perDepositorPerDay: config.reverts.perDepositorPerDay,
    onRefusedUnrecorded: (network, error) => ops.metrics.onRevertRefused(network, error),
    ...(guard ? { stopped: (n: Network) => guard.refusal(n) } : {}),
    log,
  });

  const health = healthChecks({
    db,
    chains,
    sandboxes,
    faults: admin.faults,
    pauses: admin.pauses,
    indexer,
    follower: solanaNetworks.size ? follower : null,
    sanctions,
  });
  if (guard) health.add("program", () => guard.health());

  const startedAt = Date.now();
  const relayApp = createApp({
    config,
    auth,
    indexer,
    relay,
    fees: admin.fees,
    swaps,
    compliance,
    reverts,
    chains,
    sandboxes,
    health,
    meta: {
      version: packageVersion(),
      startedAt,
      networks: [...chains.values()].map((c) => ({
        name: c.network,
        backend: c.kind,
        sandbox: c.kind === "sandbox",
        programId: config.networks[c.network].programId,
      })),
    },
    nullifierAddress: (n, mint, hash) => nullifierAddress(programIds.get(n)!, mint, hash),
    ...(opts.consoleDir ? { consoleDir: opts.consoleDir } : {}),
    operatorGuard: admin.operatorGuard,
    ops: ops.routes(admin.operatorGuard),
    ...(config.metrics.enabled ? { metrics: ops.scrape } : {}),
    requestLog: ops.requestLog(),
    admin: admin.routes({
      indexer,
      chains,
      sandboxes,
      health,
      relayer,
      inFlightRelays: () => relay.inFlightCount,
      rejectedRelays: relay.rejections,
      rateLimitStats: () => relayApp.limits.stats(),
      otherKeys: () => [
        { name: "compliance", purpose: "signs OFAC compliance signatures", publicKey: complianceKey.publicKey, address: complianceKey.address },
        // A solana network may pay from the operator's own keypair file instead of the relay's key.
        ...[...chains.values()]
          .filter((c) => c.feePayer !== relayer.address)
          .map((c) => ({
            name: `fee payer (${c.network})`,
            purpose: `signs and pays for withdrawals on ${c.network}`,
            publicKey: publicKeyBytesOrThrow(c.feePayer),
            address: c.feePayer,
            storage: `operator's keypair file ${config.networks[c.network].solana.relayerKeypairPath ?? ""}`.trim(),
          })),
      ],
      support: {
        reverts: revertStore,
        decisions: complianceLog,
        signatureCounts: () => compliance.signatureCounts(),
        sanctionsStatus: () => sanctions.status(),
        overrides: sanctionsOverrides,
      },
      nullifierAddress: (n, mint, hash) => nullifierAddress(programIds.get(n)!, mint, hash),
      version: packageVersion(),
      startedAt,
      ...(guard ? { program: (n: Network) => guard.adminView(n) } : {}),
    }),
    log,
  });
  stack.defer("retention job", () => admin.retention.stop());
  await admin.retention.start();
  await step("retention");
  // The metrics collectors, the fee-payer watch and the alerts close first.
  stack.defer("metrics, fee-payer watch and alerts", () => ops.close());
  ops.attach({
    db,
    verifierQueueDepth: () => (verifierPool as { pending?: number }).pending ?? 0,
    indexer: () => {
      const lag = new Map(follower.stats().map((s) => [`${s.network}/${s.mint}`, s]));
      return indexer.list().map((p) => {
        const l = lag.get(`${p.network}/${p.mint}`);
        return {
          network: p.network,
          mint: p.mint,
          lagDeposits: l?.lagDeposits ?? 0,
          lagSec: l?.lagSec ?? 0,
          drift: p.drift !== null,
          lastRootCheckAt: p.rootCheckedAt ?? null,
        };
      });
    },
    rpcEndpoints: () => [...chains.values()].flatMap((c) => (c.rpcEndpoints ? c.rpcEndpoints().map((e) => ({ network: c.network, ...e })) : [])),
    rateLimits: () => relayApp.limits.stats(),
    relayRejections: () => (relay as { rejections?: { counts(): Record<string, number> } }).rejections?.counts() ?? {},
    // A solana fee payer's balance from its RPC; a sandbox one only during the operator's drill (admin faults).
    feePayerBalances: new Map(
      [...chains.values()].map(
        (c) => [c.network, c.feePayerLamports ? () => c.feePayerLamports!() : async () => admin.faults.feePayerLamports(c.network)] as const,
      ),
    ),
    health,
    sanctions: () => sanctions.status(),
    ...(guard ? { programs: () => guard.refusals() } : {}),
    indexerLag: () => {
      const lag = new Map(follower.stats().map((s) => [`${s.network}/${s.mint}`, s]));
      return indexer.list().map((p) => ({
        network: p.network,
        mint: p.mint,
        lagSec: lag.get(`${p.network}/${p.mint}`)?.lagSec ?? 0,
        lagDeposits: lag.get(`${p.network}/${p.mint}`)?.lagDeposits ?? 0,
        drift: p.drift,
      }));
    },
    version: packageVersion(),
  });
  health.add("rate-limits", () => {
    const refused = relayApp.limits.stats().reduce((s, x) => s + x.refusals, 0);
    return [{ name: "rate-limits", ok: true, detail: `${refused} requests refused since start` }];
  });
  await step("ops");

  return {
    ...relayApp,
    meta: { version: packageVersion() },
    health,
    chains,
    relayStore,
    db,
    indexer,
    sanctions,
    sanctionsOverrides,
    complianceLog,
    revertStore,
    swapVenues,
    close: () => stack.close(),
  };
}
