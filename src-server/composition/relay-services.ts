/**
 * The use cases the public API calls (sign-in, relay, compliance signature,
 * revert), built for the composition root (compose-relay.ts) over the stores,
 * chains and checks already started. Nothing here starts work of its own.
 */
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import type { Network } from "../../src-shared/networks";
import { verifyEd25519Native } from "../../src-shared/node/ed25519-native";
import type { Signer } from "../../src-shared/node/keypair-file";
import type { RelayConfig } from "../config/schema";
import type { ChainBackend } from "../ports/chain";
import type { ProofVerifier } from "../ports/proof-verifier";
import type { RelayStore } from "../ports/relay-store";
import type { RevertStore } from "../ports/revert-store";
import type { Stores } from "../ports/stores";
import { AuthService } from "../services/auth";
import { ComplianceService, recordingSanctionsList } from "../services/compliance";
import type { IndexerService } from "../services/indexer";
import type { ProgramGuard } from "../services/program-guard";
import { RelayService } from "../services/relay-service";
import { RevertService } from "../services/revert-service";
import type { SwapRoutingService } from "../services/swap-routing";
import type { ConsoleAdmin } from "./console-admin";
import type { Ops } from "./ops";
import type { Sanctions } from "./sanctions";

export interface RelayServices {
  auth: AuthService;
  /** The relay store the relay service writes through (each state an event for the metrics and the log). */
  relayStore: RelayStore;
  relay: RelayService;
  compliance: ComplianceService;
  revertStore: RevertStore;
  reverts: RevertService;
  /** The instances sharing the store and who follows each network (the console's Health page). */
  cluster: Pick<Stores, "engine" | "coordination">;
}

export function relayServices(deps: {
  config: RelayConfig;
  stores: Stores;
  hasher: FieldHasher;
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  verifier: ProofVerifier;
  sanctions: Sanctions;
  complianceKey: Signer;
  admin: Pick<ConsoleAdmin, "fees" | "pauses">;
  guard: ProgramGuard | null;
  swaps: SwapRoutingService;
  ops: Ops;
  log: (line: string) => void;
}): RelayServices {
  const { config, stores, hasher, indexer, chains, admin, guard, ops, log } = deps;
  const sanctions = deps.sanctions.list;
  const auth = new AuthService(stores.auth, {
    tokenTtlSec: config.auth.tokenTtlSec,
    maxAgeSec: config.auth.loginMaxAgeSec,
    maxFutureSec: config.auth.loginMaxFutureSec,
    verifySignature: verifyEd25519Native,
  });
  const relayStore = ops.relayStore(stores.relays);
  const relay = new RelayService({
    hasher,
    indexer,
    chains,
    verifier: deps.verifier,
    sanctions: recordingSanctionsList(sanctions, deps.stores.compliance, log),
    store: relayStore,
    fees: admin.fees,
    // A network whose program is no longer the key's refuses relays as a paused one does (503 RelayPaused, the reason named).
    pauses: guard ? { pausedReason: (n, mint) => guard.refusal(n) ?? admin.pauses.pausedReason(n, mint) } : admin.pauses,
    swaps: deps.swaps,
    instanceId: stores.coordination.instanceId,
    log,
  });
  const compliance = new ComplianceService({
    walletOf: (t) => auth.walletOf(t),
    sanctions,
    key: deps.complianceKey,
    log: deps.stores.compliance,
    auditLog: config.compliance.auditLog,
    onDecision: (network, outcome) => ops.metrics.onComplianceSignature(network, outcome),
    logLine: log,
  });
  const revertStore = ops.revertStore(stores.reverts);
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
  return { auth, relayStore, relay, compliance, revertStore, reverts, cluster: { engine: stores.engine, coordination: stores.coordination } };
}
