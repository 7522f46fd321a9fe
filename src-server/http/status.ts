import type { AdminRejectedRelays } from "../../src-shared/api/admin";
import type { Fault } from "../core/fault";
import type { RejectedRelaysView } from "../services/admin/relays";

/** The statuses of the spec (README.md: API summary) for each kind of refusal. */
const STATUS: Record<Fault, number> = {
  client: 400,
  unauthorized: 401,
  forbidden: 403,
  "rate-limited": 429,
  server: 500,
  upstream: 502,
  busy: 503,
};

/** The HTTP status of a refusal: the one place a service's fault becomes a status (src-shared/errors.ts). */
export const httpStatus = (fault: Fault): number => STATUS[fault];

/** The console's list of rejected relays, each with the status it was answered with. */
export function rejectedRelaysAnswer(view: RejectedRelaysView): AdminRejectedRelays {
  return {
    ...view,
    items: view.items.map(({ fault, ...r }) => ({
      at: r.at,
      kind: r.kind,
      network: r.network,
      mint: r.mint,
      status: httpStatus(fault),
      error: r.error,
      detail: r.detail,
    })),
  };
}
