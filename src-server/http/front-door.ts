import type { IncomingMessage, ServerResponse } from "node:http";
import type { RateLimitedEndpoint } from "../config/schema";
import { bodyAnnounced } from "./middleware/loopback-safety";
import type { Admission } from "./middleware/rate-limit";
import type { PathParams } from "./params";

/**
 * A body-less POST read answered on Node's request event, ahead of Express
 * (the indexer's get_proof, get_merkle, get_node). The same route is also
 * registered on the Express app, which answers every request the front door
 * passes on.
 */
export interface DirectRoute {
  /** Literal segments then `:params`, Express's syntax: the route's name in logs and metrics too. */
  pattern: string;
  endpoint: RateLimitedEndpoint;
  /** Writes the whole answer, success or error. `params` by name, as Express's `req.params`. */
  handle(params: PathParams, res: ServerResponse): void;
}

export interface FrontDoorDeps {
  routes: readonly DirectRoute[];
  /**
   * The app-wide checks, without side effects (the Host check, the cross-site check). A request they
   * do not accept goes to Express whole, which answers it as it always has.
   */
  accepts(req: IncomingMessage): boolean;
  /** What the app's first middleware does for every request (request id and log, common headers), for one the front door takes. */
  begin(req: IncomingMessage, res: ServerResponse, route: string): void;
  /** The request's answer is written (or its stream has failed): what the app does when an answer finishes (count, log line). */
  settle(res: ServerResponse): void;
  /** A route's rate limit; null with limits off. */
  admission(endpoint: RateLimitedEndpoint): Admission | null;
  /** A route threw: the answer and the log line of the app's error handler. */
  failed(req: IncomingMessage, res: ServerResponse, error: unknown): void;
  /** Every other request: the Express app. */
  express(req: IncomingMessage, res: ServerResponse): void;
}

const SLASH = 0x2f;
const QUERY = 0x3f;
const PERCENT = 0x25;
const HASH = 0x23;

interface Entry {
  route: DirectRoute;
  /** The pattern's first segment. */
  literal: string;
  names: readonly string[];
  admit: Admission | null;
}

/**
 * Node's request listener: the routes in `deps.routes` answered directly, all
 * else handed to Express. Express's request setup (prototype swaps, its
 * router's layer walk and param decoding) costs a get_proof four times the
 * work of building and writing the answer (docs/benchmarks.md, "Issue 18,
 * fourth pass"); the indexer's reads are most of a relay's traffic.
 *
 * Only a path Express would read the same way is taken: exact case, no query,
 * no percent-escape, no empty segment, no body announced (the app's body
 * rules, 415 and 413, are Express's to apply). Everything else
 * (`/GET_PROOF/...`, a trailing slash, a body, a Host or an Origin the app refuses) goes to
 * Express, whose routes for the same reads give the same answers. Nothing is
 * counted or logged before the request is taken, so a request is never
 * counted twice.
 */
export function frontDoor(deps: FrontDoorDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const entries: Entry[] = [];
  for (const route of deps.routes) {
    const [empty, first, ...rest] = route.pattern.split("/");
    if (empty !== "" || !first || first.startsWith(":") || rest.length === 0 || !rest.every((s) => /^:[a-z_]+$/i.test(s)))
      throw new Error(`front door: ${route.pattern} is not /literal/:param...`);
    if (entries.some((e) => e.literal === first)) throw new Error(`front door: two routes under /${first}`);
    entries.push({ route, literal: first, names: rest.map((s) => s.slice(1)), admit: deps.admission(route.endpoint) });
  }

  // The route, its parameters written into `params`; null when the front door does not take the URL.
  // One pass over the URL, slicing segments as it goes: split() and three includes() were the
  // largest share of the front door's own CPU per get_proof.
  const match = (url: string, params: Record<string, string>): Entry | null => {
    if (url.charCodeAt(0) !== SLASH) return null;
    // A few literals compared in place: slicing the segment to look it up hashed a new string per request.
    let entry: Entry | undefined;
    for (const e of entries) {
      if (url.charCodeAt(e.literal.length + 1) === SLASH && url.startsWith(e.literal, 1)) {
        entry = e;
        break;
      }
    }
    if (!entry) return null;
    let start = entry.literal.length + 2;
    for (let i = 0; i < entry.names.length; i++) {
      const end = i === entry.names.length - 1 ? url.length : url.indexOf("/", start);
      if (end <= start) return null;
      for (let k = start; k < end; k++) {
        const c = url.charCodeAt(k);
        if (c === QUERY || c === PERCENT || c === HASH || c === SLASH) return null;
      }
      params[entry.names[i]!] = url.slice(start, end);
      start = end + 1;
    }
    return entry;
  };

  // Defined once, not per request: the bundle names every closure it makes (keepNames).
  const answer = (entry: Entry, params: PathParams, req: IncomingMessage, res: ServerResponse): void => {
    try {
      entry.route.handle(params, res);
    } catch (e) {
      deps.failed(req, res, e);
    }
    deps.settle(res);
  };
  return (req, res) => {
    const params: Record<string, string> = {};
    const entry = req.method === "POST" && req.url !== undefined ? match(req.url, params) : null;
    if (!entry || bodyAnnounced(req) !== "none" || !deps.accepts(req)) return deps.express(req, res);
    deps.begin(req, res, entry.route.pattern);
    if (!entry.admit) return answer(entry, params, req, res);
    entry.admit(req, res, params).then(
      (admitted) => (admitted ? answer(entry, params, req, res) : deps.settle(res)),
      (e: unknown) => {
        deps.failed(req, res, e);
        deps.settle(res);
      },
    );
  };
}
