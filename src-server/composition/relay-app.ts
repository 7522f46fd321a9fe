/**
 * The relay's HTTP app over the built services, for the composition root
 * (compose-relay.ts): what the public routes, the operator's /admin API and the
 * metrics read. The routes themselves are http/'s.
 */
import { publicKeyBytesOrThrow } from "../../src-shared/encoding/base58";
import type { Network } from "../../src-shared/networks";
import type { Signer } from "../../src-shared/node/keypair-file";
import { nullifierAddress } from "../../src-shared/solana/pda";
import type { RelayConfig } from "../config/schema";
import { createApp, type AppDeps, type RelayApp } from "../http/app";
import type { ChainBackend } from "../ports/chain";
import type { ComplianceLog } from "../ports/compliance-log";
import type { HeldKey } from "../services/admin/status";
import type { ProgramGuard } from "../services/program-guard";
import type { ConsoleAdmin } from "./console-admin";
import type { Ops } from "./ops";
import type { RelayServices } from "./relay-services";
import type { Sanctions } from "./sanctions";

export function relayApp(
  deps: Pick<AppDeps, "config" | "consoleDir" | "indexer" | "swaps" | "chains" | "sandboxes" | "health" | "limitCounter" | "log"> & {
    version: string;
    services: RelayServices;
    programIds: ReadonlyMap<Network, Uint8Array>;
    admin: ConsoleAdmin;
    ops: Ops;
    relayer: Signer;
    complianceKey: Signer;
    sanctions: Sanctions;
    complianceLog: ComplianceLog;
    guard: ProgramGuard | null;
  },
): RelayApp {
  const { config, services, chains, sandboxes, health, admin, ops, guard, version } = deps;
  const { relay, compliance } = services;
  const startedAt = Date.now();
  const nullifierAt = (n: Network, mint: Uint8Array, hash: Uint8Array): string => nullifierAddress(deps.programIds.get(n)!, mint, hash);
  const app: RelayApp = createApp({
    config,
    auth: services.auth,
    limitCounter: deps.limitCounter,
    indexer: deps.indexer,
    relay,
    fees: admin.fees,
    swaps: deps.swaps,
    compliance,
    reverts: services.reverts,
    chains,
    sandboxes,
    health,
    meta: {
      version,
      startedAt,
      networks: [...chains.values()].map((c) => ({
        name: c.network,
        backend: c.kind,
        sandbox: c.kind === "sandbox",
        programId: config.networks[c.network].programId,
      })),
    },
    nullifierAddress: nullifierAt,
    ...(deps.consoleDir ? { consoleDir: deps.consoleDir } : {}),
    verifyOperator: (token) => admin.operatorToken.verify(token),
    ...(config.metrics.enabled ? { metrics: ops.scrape } : {}),
    requestLog: ops.requestLog(),
    admin: admin.api({
      indexer: deps.indexer,
      chains,
      sandboxes,
      health,
      relayer: deps.relayer,
      inFlightRelays: () => relay.inFlightCount,
      rejectedRelays: relay.rejections,
      rateLimitStats: () => app.limits.stats(),
      otherKeys: () => otherKeys(config, chains, deps.relayer, deps.complianceKey),
      support: {
        reverts: services.revertStore,
        decisions: deps.complianceLog,
        signatureCounts: () => compliance.signatureCounts(),
        sanctionsStatus: () => deps.sanctions.list.status(),
        overrides: deps.sanctions.overrides,
      },
      nullifierAddress: nullifierAt,
      version,
      startedAt,
      ...(guard ? { program: (n: Network) => guard.adminView(n) } : {}),
      alerts: ops.alertsConsole,
      relayLog: ops.relayLog,
      cluster: services.cluster,
    }),
    log: deps.log,
  });
  return app;
}

/** The key pairs Settings fingerprints besides the relayer's. */
function otherKeys(config: RelayConfig, chains: ReadonlyMap<Network, ChainBackend>, relayer: Signer, complianceKey: Signer): HeldKey[] {
  return [
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
  ];
}
