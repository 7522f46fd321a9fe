/** The relay's health checks (GET /health and /health/detail), registered for the composition root (compose-relay.ts). */
import type { Network } from "../../src-shared/networks";
import type { SandboxChain } from "../adapters/chain-sandbox/sandbox-chain";
import type { VerifierBootStatus } from "../adapters/verifier-groth16/deferred-verifier";
import type { ReloadingSanctionsList } from "../adapters/sanctions-file/sanctions-list";
import type { ChainBackend } from "../ports/chain";
import type { Stores } from "../ports/stores";
import type { PauseService } from "../services/admin/pause-service";
import type { SandboxFaults } from "../services/admin/sandbox-faults";
import type { ChainFollower } from "../services/chain-follower";
import type { FollowerElection } from "../services/follower-election";
import { HealthService } from "../services/health";
import type { IndexerService } from "../services/indexer";
import type { ProgramGuard } from "../services/program-guard";

export function healthChecks(deps: {
  stores: Pick<Stores, "check">;
  chains: ReadonlyMap<Network, ChainBackend>;
  sandboxes: ReadonlyMap<Network, SandboxChain>;
  admin: { faults: SandboxFaults; pauses: PauseService };
  indexer: IndexerService;
  /** The chain follower's lag check, when a Solana network is followed. */
  follower: ChainFollower | null;
  /** Which instance follows each network (one check per Solana network, `follower:<network>`). */
  election: FollowerElection;
  sanctions: ReloadingSanctionsList;
  /** The deployed program check (services/program-guard.ts), when a Solana network runs one. */
  guard: ProgramGuard | null;
  /** The proof verifier's workers, which boot after the start (adapters/verifier-groth16/deferred-verifier.ts). */
  verifier: { status(): VerifierBootStatus };
}): HealthService {
  const { stores, chains, sandboxes, indexer, follower, sanctions, guard } = deps;
  const { faults, pauses } = deps.admin;
  const health = new HealthService();
  health.add("store", async () => {
    const { ok, detail } = await stores.check();
    return [{ name: "store", ok, detail }];
  });
  for (const chain of chains.values())
    health.add(
      `chain:${chain.network}`,
      faults.guard(chain.network, () => chain.health()),
    );
  health.add("indexer", () => indexer.health());
  if (follower) {
    health.add("indexer-lag", () => follower.health());
    const solana = new Set([...chains.values()].filter((c) => c.kind === "solana").map((c) => c.network));
    health.add("follower", () =>
      deps.election
        .roles()
        .filter((r) => solana.has(r.network))
        .map((r) => ({
          name: `follower:${r.network}`,
          // Reading another instance's tree is as healthy as writing it; not knowing (the lease cannot be asked for) is not.
          ok: r.role !== "unknown" || r.lastError === null,
          detail:
            r.role === "leader"
              ? `this instance follows ${r.network} (epoch ${r.epoch})`
              : r.role === "reader"
                ? `followed by ${r.holder ?? "another instance"}; this instance reads its tree`
                : `no answer about ${r.network}'s lease yet${r.lastError ? `: ${r.lastError}` : ""}`,
        })),
    );
  }
  health.add("verifier", () => {
    const s = deps.verifier.status();
    // Booting is a start's first second, not a fault: a proof that comes meanwhile waits for the workers.
    const detail = { waiting: "workers boot once the start is done", booting: "workers booting", ready: "workers ready" };
    return [
      {
        name: "verifier",
        ok: s.state !== "failed",
        detail: s.state === "failed" ? `workers failed to start: ${s.error}; every proof is refused` : detail[s.state],
      },
    ];
  });
  health.add("paused", () => pauses.health());
  health.add("sanctions", () => {
    const s = sanctions.status();
    const list = s.version ? `${s.count} addresses (version ${s.version}) from ${s.source}` : `no list loaded from ${s.source}`;
    return [{ name: "sanctions", ok: s.version !== null, detail: s.lastError ? `${list}; last refresh failed: ${s.lastError}` : list }];
  });
  // Each solana network checks its own fee payer (chain health); the sandbox charges no fees.
  if (sandboxes.size === chains.size) health.add("fees", () => [{ name: "fee-balance", ok: true, detail: "sandbox networks pay no network fees" }]);
  if (guard) health.add("program", () => guard.health());
  return health;
}
