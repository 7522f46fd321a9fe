import {
  adminNullifierSearch,
  adminRejectedRelays,
  adminRelayDetail,
  adminRelayLog,
  adminRelayPage,
  adminSpentNullifiers,
} from "../../../../src-shared/api/admin";
import type { Infer } from "../../../../src-shared/api/decode";
import { Router } from "express";
import { RELAY_STATUSES, type RelayStatus } from "../../../../src-shared/api/admin";
import { fromHex, parseByteArray } from "../../../../src-shared/encoding/bytes";
import { isCanonicalField } from "../../../../src-shared/encoding/field";
import type { RelayFilter } from "../../../ports/console-store";
import { parseRelayCursor, type AdminRelays } from "../../../services/admin/relays";
import { invalidRequest, sendAnswer } from "../../respond";
import { rejectedRelaysAnswer } from "../../status";
import { getRecordById, optionalInt, optionalMint, optionalNetwork } from "./query";

/** A nullifier hash as an operator pastes it: 64 hex characters (0x optional) or a JSON byte array. */
export function parseNullifierQuery(q: string): Uint8Array | null {
  const text = q.trim();
  let bytes: Uint8Array | null = null;
  if (text.startsWith("[")) {
    try {
      const parsed = parseByteArray(JSON.parse(text), 32);
      bytes = parsed.ok ? parsed.value : null;
    } catch {
      bytes = null;
    }
  } else if (/^(0x)?[0-9a-fA-F]{64}$/.test(text)) {
    bytes = fromHex(text);
  }
  return bytes && isCanonicalField(bytes) ? bytes : null;
}

/** The relay's own log lines about one relay, kept in memory since start (the structured logger's); null when no log is kept. */
export type RelayLogLines = ((relayId: string) => Infer<typeof adminRelayLog>["lines"]) | null;

/** GET /admin/relays, /admin/relays/rejected, /admin/relays/{id}, /admin/relays/{id}/log, /admin/nullifiers/search, /admin/nullifiers/spent */
export function adminRelayRoutes(relays: AdminRelays, linesOf: RelayLogLines): Router {
  const r = Router();

  // The console's Relay detail: the last log lines about one relay.
  r.get("/relays/:id/log", (req, res) => {
    const id = String(req.params.id);
    res.setHeader("Cache-Control", "no-store");
    sendAnswer(res, adminRelayLog, { id, lines: linesOf?.(id) ?? [], kept: linesOf !== null });
  });

  r.get("/relays", async (req, res) => {
    const network = optionalNetwork(req, res);
    if (network === undefined) return;
    const mint = optionalMint(req, res);
    if (mint === undefined) return;
    const status = typeof req.query.status === "string" && req.query.status !== "" ? req.query.status : null;
    if (status !== null && !RELAY_STATUSES.includes(status as RelayStatus)) return invalidRequest(res, `status must be one of ${RELAY_STATUSES.join(", ")}`);
    const from = optionalInt(req, res, "from", 0, 8.64e15);
    if (from === undefined) return;
    const to = optionalInt(req, res, "to", 0, 8.64e15);
    if (to === undefined) return;
    const limit = optionalInt(req, res, "limit", 1, 200);
    if (limit === undefined) return;
    let before = null;
    if (typeof req.query.before === "string" && req.query.before !== "") {
      before = parseRelayCursor(req.query.before);
      if (!before) return invalidRequest(res, "before must be the `next` cursor of a previous page");
    }
    const filter: RelayFilter = {};
    if (network) filter.network = network;
    if (mint) filter.mint = mint;
    if (status) filter.status = status as RelayStatus;
    if (from !== null) filter.from = from;
    if (to !== null) filter.to = to;
    sendAnswer(res, adminRelayPage, await relays.page(filter, limit ?? 50, before));
  });

  r.get("/relays/rejected", (req, res) => {
    const limit = optionalInt(req, res, "limit", 1, 1000);
    if (limit === undefined) return;
    sendAnswer(res, adminRejectedRelays, rejectedRelaysAnswer(relays.rejected(limit ?? 1000)));
  });

  getRecordById(r, "/relays", "relay", (id) => relays.detail(id), adminRelayDetail, "no relay record with this id (it may be older than the retention period)");

  // The nullifier travels in the query, never the path: request paths can reach error logs, queries do not.
  r.get("/nullifiers/search", async (req, res) => {
    const q = typeof req.query.q === "string" ? req.query.q : "";
    const hash = parseNullifierQuery(q);
    if (!hash) return invalidRequest(res, "q must be a nullifier hash: 64 hex characters or a JSON array of 32 bytes, below the field modulus");
    const network = optionalNetwork(req, res);
    if (network === undefined) return;
    const mint = optionalMint(req, res);
    if (mint === undefined) return;
    sendAnswer(res, adminNullifierSearch, await relays.searchNullifier(hash, { ...(network ? { network } : {}), ...(mint ? { mint } : {}) }));
  });

  r.get("/nullifiers/spent", async (req, res) => {
    const network = optionalNetwork(req, res);
    if (network === undefined) return;
    const mint = optionalMint(req, res);
    if (mint === undefined) return;
    const limit = optionalInt(req, res, "limit", 1, 200);
    if (limit === undefined) return;
    sendAnswer(res, adminSpentNullifiers, { items: await relays.spent({ ...(network ? { network } : {}), ...(mint ? { mint } : {}) }, limit ?? 50) });
  });

  return r;
}
