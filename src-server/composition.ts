import { mkdirSync } from "node:fs";
import pkg from "../package.json" with { type: "json" };
import path from "node:path";
import { publicKeyBytesOrThrow } from "../src-shared/encoding/base58";
import { NETWORKS, type Network } from "../src-shared/networks";
import { nullifierAddress, treeAddress } from "../src-shared/solana/pda";
import { SandboxChain } from "./adapters/chain-sandbox/sandbox-chain";
import { createLeanPoseidonHasher, PREBUILT_WASM as PREBUILT_POSEIDON_WASM } from "./adapters/poseidon-lean/lean-hasher";
import { solanaPoolSubscriber, type MintSubscribe } from "./adapters/chain-solana/follower-subscribe";
import { createFailoverRpc } from "./adapters/chain-solana/rpc-failover";
import { SolanaChain } from "./adapters/chain-solana/solana-chain";
import { FileSecretStore } from "./adapters/keys/file-secret-store";
import { loadOrCreateSigner, readKeypairFile } from "./adapters/keys/keypair-file";
import { SqlAuthStore } from "./adapters/storage-sqljs/auth-store";
import { lockDataDir } from "./adapters/storage-sqljs/data-dir-lock";
import { DurableDb } from "./adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "./adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "./adapters/storage-sqljs/tree-store";
import { SqlRelayStore } from "./adapters/storage-sqljs/relay-store";
import { FileListSource } from "./adapters/sanctions-file/file-source";
import { ReloadingSanctionsList } from "./adapters/sanctions-file/sanctions-list";
import { UrlListSource } from "./adapters/sanctions-file/url-source";
import { SqlComplianceLog } from "./adapters/storage-sqljs/compliance-log";
import { SqlRevertStore } from "./adapters/storage-sqljs/revert-store";
import { SqlSanctionsStore } from "./adapters/storage-sqljs/sanctions-store";
import { JupiterSwapApi } from "./adapters/swap-jupiter/jupiter-api";
import { SandboxSwapVenue } from "./adapters/swap-sandbox/venue";
import { deferredVerifier } from "./adapters/verifier-groth16/deferred-verifier";
import { MemoizingVerifier } from "./adapters/verifier-groth16/memoizing-verifier";
import { createGroth16Verifier } from "./adapters/verifier-groth16/worker-pool";
import type { RelayConfig } from "./config/schema";
import { checkVerifyingKey } from "./config/verifying-key";
import { prepareConsoleAdmin } from "./composition-admin";
import { Ops } from "./composition-ops";
import type { RelayLogger } from "./adapters/log-pino/relay-logger";
import { createApp, type RelayApp } from "./http/app";
import type { ChainBackend } from "./ports/chain";
import type { ComplianceLog } from "./ports/compliance-log";
import type { RevertStore } from "./ports/revert-store";
import type { RelayStore } from "./ports/relay-store";
import type { SecretStore } from "./ports/secret-store";
import type { SwapVenue } from "./ports/swap-venue";
import { AuthService } from "./services/auth";
import { ComplianceService, recordingSanctionsList } from "./services/compliance";
import { HealthService } from "./services/health";
import { ChainFollower, type FollowedNetwork } from "./services/chain-follower";
import { IndexerService } from "./services/indexer";
import { RelayService } from "./services/relay-service";
import { RevertService } from "./services/revert-service";
import { SanctionsOverrides } from "./services/sanctions-overrides";
import { SwapRoutingService } from "./services/swap-routing";
import { TeardownStack } from "./teardown";

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
  // Metrics, alerts and the relay-state events (composition-ops.ts; docs/operations.md).
  const ops = new Ops(config, log, opts.logger ?? null);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  stack.defer("data dir lock", lockDataDir(config.dataDir));
  // The verifier's workers and the Poseidon wasm boot while the store opens and replays.
  const verifierStarting = createGroth16Verifier(config.verifier.vkeyPath, {
    maxQueue: config.verifier.maxQueue,
    ...(config.verifier.threads > 0 ? { threads: config.verifier.threads } : {}),
  });
  verifierStarting.catch(() => {});
  // Next to the verification key: resources/zk in the repository and in the desktop app alike.
  const hasherLoading = createLeanPoseidonHasher([path.join(path.dirname(config.verifier.vkeyPath), "poseidon-bn254.wasm"), PREBUILT_POSEIDON_WASM]);
  const dbOpening = DurableDb.open({
    dir: config.dataDir,
    migrations: MIGRATIONS,
    functions: SQL_FUNCTIONS,
    snapshotIntervalMs: config.storage.snapshotIntervalSec * 1000,
    snapshotJournalBytes: config.storage.snapshotJournalMiB * 1024 * 1024,
    log,
  });
  const [hasherLoaded, dbOpened] = await Promise.allSettled([hasherLoading, dbOpening]);
  // The store closes after the verifier (registered first), as a proof refused at close is still written to it.
  if (dbOpened.status === "fulfilled") stack.defer("store", () => dbOpened.value.close());
  const verifierPool = deferredVerifier(verifierStarting, log);
  stack.defer("verifier workers", () => verifierPool.close());
  if (dbOpened.status === "rejected") throw dbOpened.reason;
  if (hasherLoaded.status === "rejected") throw hasherLoaded.reason;
  const db = dbOpened.value;
  const hasher = hasherLoaded.value;
  await step("store");
  // Protocol v2 (migration 11) set aside the sandbox pools a v1 store held: say so on every start.
  const archived = db.all<{ network: string; mint: string; leaves: number }>("SELECT network, mint, leaves FROM archived_pools WHERE protocol = 1 ORDER BY network, mint");
  if (archived.length) {
    log(
      `protocol v2: ${archived.length} sandbox pool(s) built on protocol v1 leaves are archived and never relayed from: ` +
        `${archived.map((a) => `${a.network}/${a.mint} (${a.leaves} leaves)`).join(", ")}; relay, revert and compliance records are kept (console: Pools)`,
    );
  }
  // Headless: <dataDir>/keys/*.json, mode 0600; the desktop host passes a safeStorage-backed store.
  const secrets = opts.secrets ?? new FileSecretStore(path.join(config.dataDir, "keys"));
  const relayer = loadOrCreateSigner(secrets, "relayer");
  log(`relayer: ${relayer.address}`);

  // Listening does not wait for the verifier's workers to boot; a proof waits for them. A key that cannot be read or parsed has failed by now and still stops the start.
  await Promise.race([verifierStarting, Promise.resolve(null)]);
  const verifier = new MemoizingVerifier(verifierPool);
  const sanctionsStore = new SqlSanctionsStore(db);
  const sanctions = new ReloadingSanctionsList({
    source: config.sanctions.url
      ? new UrlListSource(config.sanctions.url, { timeoutMs: config.sanctions.fetchTimeoutSec * 1000, cacheFile: path.join(config.dataDir, "sanctions", "url-cache.json") })
      : new FileListSource(config.sanctions.file),
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

  const programIds = new Map<Network, Uint8Array>(NETWORKS.map((n) => [n, publicKeyBytesOrThrow(config.networks[n].programId)]));
  const chains = new Map<Network, ChainBackend>();
  const sandboxes = new Map<Network, SandboxChain>();
  const solanaNetworks = new Map<Network, FollowedNetwork>();
  const subscribers = new Map<Network, MintSubscribe>();
  for (const n of NETWORKS) {
    const net = config.networks[n];
    if (!net.enabled) continue;
    if (net.backend === "solana") {
      // A solana network starts only when its RPC answers and the program is deployed (docs/solana.md).
      // Its fee payer: the operator's keypair file, refused when others can read it (only its address is logged).
      const signer = net.solana.relayerKeypairPath ? readKeypairFile(net.solana.relayerKeypairPath) : relayer;
      // Every configured endpoint behind one failover (healthiest first, broadcast of transactions).
      const rpc = createFailoverRpc({
        rpcUrls: net.rpcUrls,
        wsUrl: net.wsUrl,
        commitment: net.solana.commitment,
        rpcTimeoutMs: net.solana.rpcTimeoutMs,
        rpcProbeMs: net.solana.rpcProbeMs,
        maxSlotLag: net.solana.maxSlotLag,
        log: (line) => log(`${n}: ${line}`),
        onRequest: ops.rpcRequest(n),
      });
      stack.defer(`${n} RPC probes`, () => rpc.close());
      // relay_swap lands the withdrawal and Jupiter's swap in one transaction: the chain asks Jupiter for the swap's instructions.
      const chain = await SolanaChain.connect(n, net, signer, hasher, log, { rpc, swapInstructions: new JupiterSwapApi(config.jupiter), swapPrograms: config.jupiter.programIds });
      chains.set(n, chain);
      solanaNetworks.set(n, { chain, pollMs: net.solana.pollMs, maxIndexerLagSec: net.solana.maxIndexerLagSec });
      subscribers.set(n, solanaPoolSubscriber(rpc, { programId: net.programId, commitment: net.solana.commitment, log }));
      continue;
    }
    const chain = new SandboxChain(n, db, hasher, relayer, programIds.get(n)!, verifier);
    for (const mint of net.pools) await chain.initializePool(mint);
    chains.set(n, chain);
    sandboxes.set(n, chain);
  }
  await step("chains");
  // A sandbox network swaps in its constant-product pools, a Solana network through Jupiter.
  const swapVenues = new Map<Network, SwapVenue>();
  for (const n of NETWORKS) {
    if (!config.networks[n].enabled) continue;
    const sandbox = sandboxes.get(n);
    swapVenues.set(n, sandbox ? new SandboxSwapVenue(sandbox.swapPools) : new JupiterSwapApi(config.jupiter));
  }
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
    pauses: admin.pauses,
    swaps,
    log,
  });

  await relay.reconcileInterrupted();
  await step("reconcile");

  const compliance = new ComplianceService({ walletOf: (t) => auth.walletOf(t), sanctions, key: complianceKey, log: complianceLog, logLine: log });
  const revertStore = ops.revertStore(new SqlRevertStore(db));
  const reverts = new RevertService({ hasher, chains, walletOf: (t) => auth.walletOf(t), store: revertStore, perDepositorPerDay: config.reverts.perDepositorPerDay, log });

  const health = new HealthService();
  health.add("store", () => {
    db.get("SELECT 1 AS x");
    const failure = db.failure;
    return [{ name: "store", ok: !failure, detail: failure ? failure.message : `journal ${db.stats.journalBytes} bytes, ${db.stats.writes} writes` }];
  });
  for (const chain of chains.values()) health.add(`chain:${chain.network}`, admin.faults.guard(chain.network, () => chain.health()));
  health.add("indexer", () => indexer.health());
  if (solanaNetworks.size) health.add("indexer-lag", () => follower.health());
  health.add("paused", () => admin.pauses.health());
  health.add("sanctions", () => {
    const s = sanctions.status();
    const list = s.version ? `${s.count} addresses (version ${s.version}) from ${s.source}` : `no list loaded from ${s.source}`;
    return [{ name: "sanctions", ok: s.version !== null, detail: s.lastError ? `${list}; last refresh failed: ${s.lastError}` : list }];
  });
  // Each solana network checks its own fee payer (chain health); the sandbox charges no fees.
  if (sandboxes.size === chains.size) health.add("fees", () => [{ name: "fee-balance", ok: true, detail: "sandbox networks pay no network fees" }]);

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
      networks: [...chains.values()].map((c) => ({ name: c.network, backend: c.kind, sandbox: c.kind === "sandbox", programId: config.networks[c.network].programId })),
    },
    nullifierAddress: (n, mint, hash) => nullifierAddress(programIds.get(n)!, mint, hash),
    ...(opts.consoleDir ? { consoleDir: opts.consoleDir } : {}),
    operatorGuard: admin.operatorGuard,
    ops: ops.routes(admin.operatorGuard),
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
      support: { reverts: revertStore, decisions: complianceLog, sanctionsStatus: () => sanctions.status(), overrides: sanctionsOverrides },
      nullifierAddress: (n, mint, hash) => nullifierAddress(programIds.get(n)!, mint, hash),
      version: packageVersion(),
      startedAt,
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
        return { network: p.network, mint: p.mint, lagDeposits: l?.lagDeposits ?? 0, lagSec: l?.lagSec ?? 0, drift: p.drift !== null, lastRootCheckAt: p.rootCheckedAt ?? null };
      });
    },
    rpcEndpoints: () => [...chains.values()].flatMap((c) => (c.rpcEndpoints ? c.rpcEndpoints().map((e) => ({ network: c.network, ...e })) : [])),
    rateLimits: () => relayApp.limits.stats(),
    relayRejections: () => (relay as { rejections?: { counts(): Record<string, number> } }).rejections?.counts() ?? {},
    // A solana fee payer's balance from its RPC; a sandbox one only during the operator's drill (admin faults).
    feePayerBalances: new Map(
      [...chains.values()].map((c) => [c.network, c.feePayerLamports ? () => c.feePayerLamports!() : async () => admin.faults.feePayerLamports(c.network)] as const),
    ),
    health,
    sanctions: () => sanctions.status(),
    indexerLag: () => {
      const lag = new Map(follower.stats().map((s) => [`${s.network}/${s.mint}`, s]));
      return indexer.list().map((p) => ({ network: p.network, mint: p.mint, lagSec: lag.get(`${p.network}/${p.mint}`)?.lagSec ?? 0, lagDeposits: lag.get(`${p.network}/${p.mint}`)?.lagDeposits ?? 0, drift: p.drift }));
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
