import { Router, type Response } from "express";
import { ErrorName } from "../../../src-shared/errors";
import { parseFieldBytes } from "../../../src-shared/encoding/field";
import type { Network } from "../../../src-shared/networks";
import { ProofJson } from "../../core/merkle/proof-json";
import type { ChainBackend } from "../../ports/chain";
import type { IndexedPool, IndexerService } from "../../services/indexer";
import type { RateLimits } from "../middleware/rate-limit";
import { parseDepthParam, parseIndexParam, parseMintParam, parseNetworkParam, type ParamError } from "../params";
import { byteArrayJson, invalidRequest, sendError, sendJsonText } from "../respond";

export interface IndexerRouteDeps {
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  nullifierAddress: (network: Network, mint: Uint8Array, hash: Uint8Array) => string;
  limits: RateLimits;
}

const fail = (res: Response, e: ParamError): void => sendError(res, e.status, e.error, e.message);

/**
 * get_proof answers per pool (core/merkle/proof-json.ts keeps the text that does not change).
 * Keyed by the pool object: a pool rebuilt from the store after a failed write is a new object with a new tree.
 */
const proofJson = new WeakMap<IndexedPool, ProofJson>();
const proofJsonOf = (pool: IndexedPool): ProofJson => {
  let p = proofJson.get(pool);
  if (!p) proofJson.set(pool, (p = new ProofJson(pool.tree, pool.address)));
  return p;
};

export function indexerRoutes(deps: IndexerRouteDeps, r: Router = Router()): Router {
  const enabled = (n: Network): boolean => deps.chains.has(n);

  /** Network, depth and mint checked in that order, then the pool must exist. */
  const resolvePool = (res: Response, params: Record<string, unknown>): { pool: IndexedPool } | null => {
    const network = parseNetworkParam(params.network, enabled);
    if (!network.ok) return (fail(res, network.error), null);
    const depth = parseDepthParam(params.depth);
    if (!depth.ok) return (fail(res, depth.error), null);
    // A known pool's mint was validated when the pool was opened: skip base58 decoding on the hot path.
    let pool = typeof params.mint === "string" ? deps.indexer.get(network.value, params.mint) : null;
    if (!pool) {
      const mint = parseMintParam(params.mint);
      if (!mint.ok) return (fail(res, mint.error), null);
      pool = deps.indexer.get(network.value, mint.value.mint);
      if (!pool) return (sendError(res, 404, ErrorName.PoolNotFound, `no pool for ${mint.value.mint} on ${network.value}`), null);
    }
    if (pool.drift) return (sendError(res, 503, ErrorName.IndexerDrift, "the indexer disagrees with the chain; answers are paused"), null);
    return { pool };
  };

  r.post("/get_merkle/:mint/:depth/:network", ...deps.limits.middleware("get_merkle"), (req, res) => {
    const found = resolvePool(res, req.params);
    if (!found) return;
    const { pool } = found;
    sendJsonText(
      res,
      `{"address":"${pool.address}","json":{"root":${byteArrayJson(pool.tree.root())},"nextIndex":${pool.tree.nextIndex},"depth":${pool.tree.depth}}}`,
    );
  });

  r.post("/get_proof/:mint/:depth/:index/:network", ...deps.limits.middleware("get_proof"), (req, res) => {
    const found = resolvePool(res, req.params);
    if (!found) return;
    const index = parseIndexParam(req.params.index, 2 ** 32);
    if (!index.ok) return fail(res, index.error);
    const answer = proofJsonOf(found.pool).answer(index.value);
    if (!answer) return sendError(res, 400, ErrorName.IndexOutOfRange, `leaf ${index.value} is not in the tree (nextIndex ${found.pool.tree.nextIndex})`);
    sendJsonText(res, Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength));
  });

  r.post("/get_node/:mint/:depth/:index/:network", ...deps.limits.middleware("get_node"), (req, res) => {
    const found = resolvePool(res, req.params);
    if (!found) return;
    const index = parseIndexParam(req.params.index, 2 ** 33);
    if (!index.ok) return fail(res, index.error);
    const node = found.pool.tree.heapNode(index.value);
    if (!node.ok) return sendError(res, 400, ErrorName.IndexOutOfRange, "heap index must be from 1 to 2^33 - 1");
    sendJsonText(res, `{"address":"${found.pool.address}","json":{"value":${byteArrayJson(node.value)}}}`);
  });

  r.post("/get_nullifier/:mint/:depth/:network", ...deps.limits.middleware("get_nullifier"), async (req, res) => {
    const found = resolvePool(res, req.params);
    if (!found) return;
    const body: unknown = req.body;
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return invalidRequest(res, "body must be a JSON object { nullifierHash: number[32] } sent as application/json");
    }
    const hash = parseFieldBytes((body as Record<string, unknown>).nullifierHash);
    if (!hash.ok) return invalidRequest(res, `nullifierHash: ${hash.error} (32 bytes, big-endian, below the field modulus)`);
    const chain = deps.chains.get(found.pool.network)!;
    const spent = await chain.isNullifierSpent(found.pool.mint, hash.value);
    if (!spent) return void res.status(200).json({ address: null, json: null });
    const mintBytes = parseMintParam(found.pool.mint);
    if (!mintBytes.ok) throw new Error(`pool ${found.pool.mint} has an invalid mint`);
    res.status(200).json({ address: deps.nullifierAddress(found.pool.network, mintBytes.value.bytes, hash.value), json: { spent: true } });
  });

  return r;
}
