import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { sendRaw } from "../../tests/support/raw-http";
import { frontDoor, type DirectRoute, type FrontDoorDeps } from "./front-door";
import { writeJson } from "./respond";

/** A front door on a real socket whose parts record what each request went through. */
async function serve(overrides: Partial<FrontDoorDeps> = {}, routes?: DirectRoute[]) {
  const seen: string[] = [];
  const deps: FrontDoorDeps = {
    routes: routes ?? [
      {
        pattern: "/get_proof/:mint/:depth/:index/:network",
        endpoint: "get_proof",
        handle: (params, res) => {
          seen.push(`handle ${JSON.stringify(params)}`);
          writeJson(res, 200, { direct: params });
        },
      },
      {
        pattern: "/get_merkle/:mint/:depth/:network",
        endpoint: "get_merkle",
        handle: () => {
          throw new Error("boom");
        },
      },
    ],
    accepts: (req) => req.headers.host !== "evil.example",
    begin: (_req, res, route) => {
      seen.push(`begin ${route}`);
      res.setHeader("X-Begun", route);
    },
    settle: (res) => seen.push(`settle ${res.writableEnded ? "ended" : "open"}`),
    admission: () => null,
    failed: (_req, res, e) => {
      seen.push(`failed ${(e as Error).message}`);
      writeJson(res, 500, { error: "InternalError" });
    },
    express: (req, res) => {
      seen.push(`express ${req.method} ${req.url}`);
      writeJson(res, 404, { via: "express" });
    },
    ...overrides,
  };
  const server: Server = createServer(frontDoor(deps));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

describe("front door", () => {
  it("answers an exact body-less POST of a direct route itself, with its parameters by name", async () => {
    const { url, seen } = await serve();
    const r = await sendRaw(`${url}/get_proof/Mint111/32/7/mainnet`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ direct: { mint: "Mint111", depth: "32", index: "7", network: "mainnet" } });
    expect(r.headers["x-begun"]).toBe("/get_proof/:mint/:depth/:index/:network");
    expect(seen).toEqual([
      "begin /get_proof/:mint/:depth/:index/:network",
      'handle {"mint":"Mint111","depth":"32","index":"7","network":"mainnet"}',
      "settle ended",
    ]);
  });

  it("takes an empty body announced with Content-Length: 0", async () => {
    const { url, seen } = await serve();
    expect((await sendRaw(`${url}/get_proof/M/32/7/mainnet`, { body: "" })).status).toBe(200);
    expect(seen[0]).toMatch(/^begin /);
  });

  it("passes every request Express could read differently to Express whole, before counting or logging it", async () => {
    const { url, seen } = await serve();
    const passed: [string, Parameters<typeof sendRaw>[1]][] = [
      ["/get_proof/M/32/7/mainnet", { method: "GET" }],
      ["/get_proof/M/32/7/mainnet?x=1", {}],
      ["/get_proof/M%31/32/7/mainnet", {}],
      ["/get_proof/M/32/7/main%6Eet", {}],
      ["/get_proof?/M/32/7/mainnet", {}],
      ["/get_proof/M/32/7#/mainnet", {}],
      ["/get_proof", {}],
      ["/GET_PROOF/M/32/7/mainnet", {}],
      ["/get_proof/M/32/7/mainnet/", {}],
      ["/get_proof/M//7/mainnet", {}],
      ["/get_proof/M/32/mainnet", {}],
      ["/get_proof/M/32/7/mainnet/extra", {}],
      ["//get_proof/M/32/7/mainnet", {}],
      ["/get_nullifier/M/32/mainnet", {}],
      ["/get_proof/M/32/7/mainnet", { body: "{}", headers: { "content-type": "application/json" } }],
      ["/get_proof/M/32/7/mainnet", { body: "{}", chunked: true, headers: { "content-type": "application/json", "transfer-encoding": "chunked" } }],
      ["/get_proof/M/32/7/mainnet", { headers: { host: "evil.example" } }],
    ];
    for (const [path, opts] of passed) {
      seen.length = 0;
      const r = await sendRaw(`${url}${path}`, opts);
      expect(r.json, path).toEqual({ via: "express" });
      expect(seen, path).toEqual([expect.stringMatching(/^express /)]);
      expect(r.headers["x-begun"], path).toBeUndefined();
    }
  });

  it("runs the route's limit after the request is begun, and a refused request never reaches the handler but is settled", async () => {
    const { url, seen } = await serve({
      admission: (endpoint) => async (_req, res, params) => {
        seen.push(`admit ${endpoint} ${JSON.stringify(params)}`);
        writeJson(res, 429, { error: "RateLimited" });
        return false;
      },
    });
    const r = await sendRaw(`${url}/get_proof/M/32/7/mainnet`);
    expect(r.status).toBe(429);
    expect(seen).toEqual([
      "begin /get_proof/:mint/:depth/:index/:network",
      'admit get_proof {"mint":"M","depth":"32","index":"7","network":"mainnet"}',
      "settle ended",
    ]);
  });

  it("answers a route that throws with the error handler's answer, settles it, and keeps serving", async () => {
    const { url, seen } = await serve();
    const r = await sendRaw(`${url}/get_merkle/M/32/mainnet`);
    expect(r.status).toBe(500);
    expect(seen).toEqual(["begin /get_merkle/:mint/:depth/:network", "failed boom", "settle ended"]);
    expect((await sendRaw(`${url}/get_proof/M/32/7/mainnet`)).status).toBe(200);
  });

  it("refuses at start a pattern that is not literal segment then parameters, or two routes under one segment", async () => {
    const route = (pattern: string): DirectRoute => ({ pattern, endpoint: "get_proof", handle: () => {} });
    for (const bad of ["get_proof/:a", "/:a/:b", "/get_proof", "/get_proof/fixed/:a", "/get_proof/:a*"])
      expect(() => frontDoor({ ...stubDeps, routes: [route(bad)] }), bad).toThrow(/not \/literal/);
    expect(() => frontDoor({ ...stubDeps, routes: [route("/get_proof/:a"), route("/get_proof/:a/:b")] })).toThrow(/two routes/);
  });
});

const stubDeps: FrontDoorDeps = {
  routes: [],
  accepts: () => true,
  begin: () => {},
  settle: () => {},
  admission: () => null,
  failed: () => {},
  express: () => {},
};
