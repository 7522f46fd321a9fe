import type { AlertStore } from "./alert-store";
import type { AuthStore } from "./auth-store";
import type { ComplianceLog } from "./compliance-log";
import type { ConsoleStore } from "./console-store";
import type { Coordination } from "./coordination";
import type { LimitCounter } from "./limit-counter";
import type { RelayStore } from "./relay-store";
import type { RevertStore } from "./revert-store";
import type { SanctionsStore } from "./sanctions";
import type { TreeStore } from "./tree-store";

/** Every store the relay has, over one engine: the composition root opens it once and passes it where it passed the database. */
export interface Stores {
  readonly engine: "sqljs" | "postgres";
  tree: TreeStore;
  relays: RelayStore;
  reverts: RevertStore;
  auth: AuthStore;
  alerts: AlertStore;
  compliance: ComplianceLog;
  console: ConsoleStore;
  sanctionsOverrides: SanctionsStore;
  coordination: Coordination;
  limits: LimitCounter;
  /** For /health and metrics: ok or the engine's failure, and a short detail. */
  check(): Promise<{ ok: boolean; detail: string }>;
  close(): Promise<void>;
}
