import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { ClientError } from "./api-result";
import { RelayClient } from "./http";
import { chainNullifierStatus } from "./lookup";
import { chainConnection } from "./chain";
import { createNote, withDeposit } from "./note";
import { separateConnectionFetch } from "./separate-connection";
import { withdraw } from "./withdraw";

const WSOL = "So11111111111111111111111111111111111111112";

let server: Server;
let url: string;
const seen: { path: string; port: number; connection: string | undefined; contentType: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({ path: req.url ?? "", port: req.socket.remotePort ?? 0, connection: req.headers.connection, contentType: req.headers["content-type"], body });
      if (req.url === "/version") return void setTimeout(() => res.end("late"), 2_000);
      if (req.url?.startsWith("/get_nullifier/")) {
        res.setHeader("content-type", "application/json");
        return void res.end(JSON.stringify({ address: null, json: null }));
      }
      if (req.url === "/teapot") {
        res.statusCode = 418;
        res.setHeader("retry-after", "7");
        return void res.end(JSON.stringify({ error: "Teapot", message: "short and stout" }));
      }
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("separateConnectionFetch", () => {
  it("opens a new connection for every request, asks the server to close it, and passes the method, headers and body", async () => {
    seen.length = 0;
    const client = new RelayClient({ baseUrl: url, fetch: separateConnectionFetch });
    for (let i = 0; i < 3; i++)
      expect(await client.getNullifier(WSOL, new Uint8Array(32).fill(i), "mainnet")).toMatchObject({ ok: true, value: { address: null } });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.port)).size).toBe(3);
    expect(seen.every((s) => s.connection === "close" && s.contentType === "application/json")).toBe(true);
    expect(JSON.parse(seen[2]!.body)).toEqual({ nullifierHash: Array(32).fill(2) });
  });

  it("answers statuses, headers and empty bodies as fetch does", async () => {
    const teapot = await separateConnectionFetch(`${url}/teapot`);
    expect(teapot.status).toBe(418);
    expect(teapot.headers.get("retry-after")).toBe("7");
    expect(await teapot.json()).toEqual({ error: "Teapot", message: "short and stout" });
    const empty = await separateConnectionFetch(`${url}/nothing`, { method: "POST" });
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe("");
  });

  it("a time-out and a refused connection reach RelayClient as Timeout and NetworkError", async () => {
    const timedOut = await new RelayClient({ baseUrl: url, fetch: separateConnectionFetch, timeoutMs: 200 }).version();
    expect(timedOut).toMatchObject({ ok: false, status: 0, error: ClientError.Timeout });
    const refused = await new RelayClient({ baseUrl: "http://127.0.0.1:1", fetch: separateConnectionFetch }).version();
    expect(refused).toMatchObject({ ok: false, status: 0, error: ClientError.NetworkError, message: expect.stringContaining("ECONNREFUSED") });
  });
});

describe("the chain lookup when the RPC does not answer", () => {
  it("is an RpcError with status 0, and withdraw() stops at the spent check without asking the relay anything", async () => {
    const hasher = await createPoseidonHasher();
    const created = await createNote({ network: "mainnet", mint: WSOL, amount: 1_000_000n, hasher });
    if (!created.ok) throw new Error(created.error);
    const note = withDeposit(created.value, { signature: "dep", status: "indexed", leafIndex: 0, wallet: WSOL });
    const status = await chainNullifierStatus(chainConnection("http://127.0.0.1:1"), "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ", note);
    expect(status).toMatchObject({ ok: false, status: 0, error: ClientError.RpcError, message: expect.stringContaining("http://127.0.0.1:1") });

    seen.length = 0;
    const r = await withdraw(new RelayClient({ baseUrl: url }), note, WSOL, { hasher, lookup: { kind: "chain", rpc: "http://127.0.0.1:1" } });
    expect(r).toMatchObject({ ok: false, error: { stage: "nullifier", failure: { error: ClientError.RpcError } } });
    expect(seen).toEqual([]);
  });
});
