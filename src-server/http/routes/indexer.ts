import type { ServerResponse } from "node:http";
import { Router } from "express";
import { ErrorName } from "../../../src-shared/errors";
import type { LeafList } from "../../../src-shared/api/public";
import { decodeBody } from "../../../src-shared/api/request-fields";
import { LEAVES_PAGE_MAX, leavesRequest, nullifierRequest } from "../../../src-shared/api/requests";
import type { Network } from "../../../src-shared/networks";
import { err, ok, type Result } from "../../../src-shared/result";
import { ProofJson } from "../../core/merkle/proof-json";
import type { ChainBackend } from "../../ports/chain";
import type { IndexedPool, IndexerService } from "../../services/indexer";
import type { RateLimits } from "../middleware/rate-limit";
import type { DirectRoute } from "../front-door";
import { parseDepthParam, parseIndexParam, parseMintParam, parseNetworkParam, type ParamError, type PathParams } from "../params";
import { byteArrayJson, invalidRequest, sendError, sendJsonText } from "../respond";

export interface IndexerRouteDeps {
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  nullifierAddress: (network: Network, mint: Uint8Array, hash: Uint8Array) => string;
  limits: RateLimits;
}

const fail = (res: ServerResponse, e: ParamError): void => sendError(res, e.status, e.error, e.message);

/** get_leaves' optional body `{ from?, limit? }`: an error message naming the field, or the page asked. */
export function parseLeavesBody(body: unknown): Result<{ from: number; limit: number }, string> {
  const page = decodeBody(leavesRequest, body);
  return page.ok ? ok({ from: page.value.from ?? 0, limit: page.value.limit ?? LEAVES_PAGE_MAX }) : err(page.error.message);
}

/**
 * get_proof answers per pool (core/merkle/proof-json.ts keeps the text that does not change).
 * Keyed by the pool object: a pool rebuilt from the store after a failed write is a new object with a new tree.
 */
const proofJson = new WeakMap<IndexedPool, ProofJson>();
/** Answers as Buffers: the socket writes a Buffer as it is, and wraps any other Uint8Array in one per write. */
const asBuffer = (bytes: Uint8Array): Uint8Array => Buffer.from(bytes);
const proofJsonOf = (pool: IndexedPool): ProofJson => {
  let p = proofJson.get(pool);
  if (!p) proofJson.set(pool, (p = new ProofJson(pool.tree, pool.address, { copy: asBuffer })));
  return p;
};

/** Network, depth and mint checked in that order, then the pool must exist and be in step with its chain. */
function poolResolver(deps: Pick<IndexerRouteDeps, "indexer" | "chains">): (res: ServerResponse, params: PathParams) => { pool: IndexedPool } | null {
  const enabled = (n: Network): boolean => deps.chains.has(n);
  return (res, params) => {
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
}

/**
 * The body-less reads (get_merkle, get_proof, get_node) on Node's own response: http/front-door.ts answers
 * them ahead of Express, and {@link indexerRoutes} registers the same handlers for the requests it passes on.
 */
export function indexerReads(deps: Pick<IndexerRouteDeps, "indexer" | "chains">): DirectRoute[] {
  const resolvePool = poolResolver(deps);

  return [
    {
      pattern: "/get_merkle/:mint/:depth/:network",
      endpoint: "get_merkle",
      handle(params, res) {
        const found = resolvePool(res, params);
        if (!found) return;
        const { pool } = found;
        sendJsonText(
          res,
          `{"address":"${pool.address}","json":{"root":${byteArrayJson(pool.tree.root())},"nextIndex":${pool.tree.nextIndex},"depth":${pool.tree.depth}}}`,
        );
      },
    },
    {
      pattern: "/get_proof/:mint/:depth/:index/:network",
      endpoint: "get_proof",
      handle(params, res) {
        const found = resolvePool(res, params);
        if (!found) return;
        const index = parseIndexParam(params.index, 2 ** 32);
        if (!index.ok) return fail(res, index.error);
        const answer = proofJsonOf(found.pool).answer(index.value);
        if (!answer) return sendError(res, 400, ErrorName.IndexOutOfRange, `leaf ${index.value} is not in the tree (nextIndex ${found.pool.tree.nextIndex})`);
        sendJsonText(res, answer);
      },
    },
    {
      pattern: "/get_node/:mint/:depth/:index/:network",
      endpoint: "get_node",
      handle(params, res) {
        const found = resolvePool(res, params);
        if (!found) return;
        const index = parseIndexParam(params.index, 2 ** 33);
        if (!index.ok) return fail(res, index.error);
        const node = found.pool.tree.heapNode(index.value);
        if (!node.ok) return sendError(res, 400, ErrorName.IndexOutOfRange, "heap index must be from 1 to 2^33 - 1");
        sendJsonText(res, `{"address":"${found.pool.address}","json":{"value":${byteArrayJson(node.value)}}}`);
      },
    },
  ];
}

/**
 * The indexer's routes on Express: the {@link indexerReads} (for what the front door passes on), and
 * get_nullifier and get_leaves, which take a body.
 */
export function indexerRoutes(deps: IndexerRouteDeps, r: Router = Router(), reads: readonly DirectRoute[] = indexerReads(deps)): Router {
  const resolvePool = poolResolver(deps);
  for (const read of reads) r.post(read.pattern, ...deps.limits.middleware(read.endpoint), (req, res) => read.handle(req.params, res));

  r.post("/get_nullifier/:mint/:depth/:network", ...deps.limits.middleware("get_nullifier"), async (req, res) => {
    const found = resolvePool(res, req.params);
    if (!found) return;
    const { pool } = found;
    const body = decodeBody(nullifierRequest, req.body);
    if (!body.ok) return invalidRequest(res, body.error.message);
    const hash = body.value.nullifierHash;
    const chain = deps.chains.get(pool.network)!;
    const spent = await chain.isNullifierSpent(pool.mint, hash);
    if (!spent) return void res.status(200).json({ address: null, json: null });
    const mintBytes = parseMintParam(pool.mint);
    if (!mintBytes.ok) throw new Error(`pool ${pool.mint} has an invalid mint`);
    res.status(200).json({ address: deps.nullifierAddress(pool.network, mintBytes.value.bytes, hash), json: { spent: true } });
  });

  r.post("/get_leaves/:mint/:depth/:network", ...deps.limits.middleware("get_leaves"), async (req, res) => {
    const found = resolvePool(res, req.params);
    if (!found) return;
    const page = parseLeavesBody(req.body);
    if (!page.ok) return invalidRequest(res, page.error);
    const { pool } = found;
    // Read with the list's bound (indexer.leaves), so the list never runs ahead of this nextIndex.
    const nextIndex = pool.tree.nextIndex;
    const leaves = await deps.indexer.leaves(pool, page.value.from, page.value.limit);
    const answer: LeafList = {
      address: pool.address,
      json: {
        nextIndex,
        from: page.value.from,
        leaves: leaves.map((l) => ({
          index: l.leafIndex,
          kind: l.kind,
          amount: l.amount === null ? null : l.amount.toString(),
        })),
      },
    };
    res.status(200).json(answer);
  });

  return r;
}
