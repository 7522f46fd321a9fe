import type { ErrorNameValue } from "../../src-shared/errors";

/**
 * Whose a refusal is, in the few kinds a client acts on differently: its own request
 * (client), its credentials (unauthorized, forbidden), its pace (rate-limited), the
 * relay (server), a venue the relay asked (upstream), or the relay's load or a
 * pause (busy: try again later). Services answer these with an error name; only the
 * HTTP layer turns them into statuses (src-server/http/status.ts).
 */
export type Fault = "client" | "unauthorized" | "forbidden" | "rate-limited" | "server" | "upstream" | "busy";

/** A refusal as a service answers it: the spec's error name, whose fault it is, and why. */
export interface Refusal {
  fault: Fault;
  error: ErrorNameValue;
  message: string;
  /** When the same request may succeed again, in seconds (a busy refusal's Retry-After). */
  retryAfterSec?: number;
}
