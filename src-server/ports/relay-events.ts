/**
 * Relay and revert state changes as the services record them, for whoever
 * listens: metrics, alerts, the structured log (services/relay-events.ts
 * wraps the stores to emit them). A listener learns no recipient, nullifier
 * or client address.
 */
import type { Network } from "../../src-shared/networks";
import type { RelayState } from "../core/relay/states";
import type { RevertState } from "../core/revert/states";
import type { NewRelayRecord } from "./relay-store";

/** What a listener learns of a relay: never its recipient, nullifier or any client address. */
export interface RelayEvent {
  id: string;
  kind: NewRelayRecord["kind"];
  network: Network;
  mint: string;
  state: RelayState;
  /** When the relay was received (Unix ms). */
  receivedAt: number;
  /** Each earlier state's time, by kind (stage latencies). */
  times: Partial<Record<RelayState["kind"], number>>;
}

export interface RevertEvent {
  id: string;
  network: Network;
  state: RevertState;
  requestedAt: number;
}
