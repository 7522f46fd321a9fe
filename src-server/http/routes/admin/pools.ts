import { adminArchivedPools, adminPools, adminPoolSummary, adminTreeNode } from "../../../../src-shared/api/admin";
import { Router } from "express";
import { ErrorName } from "../../../../src-shared/errors";
import type { AdminPools } from "../../../services/admin/pools";
import { sendAnswer, sendError } from "../../respond";
import { optionalMint, optionalNetwork, range } from "./query";

/** GET /admin/pools, /admin/pools/archived, /admin/pools/{network}/{mint}, /admin/pools/{network}/{mint}/nodes/{heapIndex} */
export function adminPoolRoutes(pools: AdminPools): Router {
  const r = Router();

  r.get("/pools", async (req, res) => {
    const rg = range(req, res, "7d");
    if (!rg) return;
    sendAnswer(res, adminPools, { pools: await pools.list(rg) });
  });

  r.get("/pools/archived", async (_req, res) => {
    sendAnswer(res, adminArchivedPools, { archived: await pools.archived() });
  });

  r.get("/pools/:network/:mint", async (req, res) => {
    const network = optionalNetwork(req, res);
    const mint = optionalMint(req, res);
    const rg = range(req, res, "7d");
    if (!network || !mint || !rg) return;
    const pool = await pools.get(network, mint, rg);
    if (!pool) return sendError(res, 404, ErrorName.PoolNotFound, `no pool for ${mint} on ${network}`);
    sendAnswer(res, adminPoolSummary, pool);
  });

  r.get("/pools/:network/:mint/nodes/:index", async (req, res) => {
    const network = optionalNetwork(req, res);
    const mint = optionalMint(req, res);
    if (!network || !mint) return;
    const raw = req.params.index ?? "";
    if (!/^[0-9]{1,16}$/.test(raw))
      return sendError(res, 400, ErrorName.InvalidRequest, "index must be a heap index: 1 is the root, node i has children 2i and 2i+1");
    const found = await pools.node(network, mint, Number(raw));
    if (!found.ok) {
      return found.error === "PoolNotFound"
        ? sendError(res, 404, ErrorName.PoolNotFound, `no pool for ${mint} on ${network}`)
        : sendError(res, 400, ErrorName.IndexOutOfRange, "heap index must be from 1 to 2^33 - 1");
    }
    sendAnswer(res, adminTreeNode, found.value);
  });

  return r;
}
