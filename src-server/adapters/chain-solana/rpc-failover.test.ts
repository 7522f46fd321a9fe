import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SolanaJSONRPCError } from "@solana/web3.js";
import { afterEach, describe, expect, it } from "vitest";
import { FailoverRpc, isEndpointFailure, type RpcEndpoint } from "./rpc-failover";
import { createSolanaRpc, type SolanaRpc } from "./rpc";

/** An endpoint whose getSlot / sendRawTransaction answer as the test says, counting calls. */
class Scripted {
  calls: string[] = [];
  slot = 1000;
  down: Error | null = null;
  sendError: unknown = null;
  constructor(readonly name: string) {}
  rpc(): RpcEndpoint["rpc"] {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the stub's methods are object-literal methods, whose own `this` is the literal
    const self = this;
    const partial = {
      async getSlot() {
        self.calls.push("getSlot");
        if (self.down) throw self.down;
        return self.slot;
      },
      async getBlockHeight() {
        self.calls.push("getBlockHeight");
        if (self.down) throw self.down;
        return self.slot - 10;
      },
      async sendRawTransaction() {
        self.calls.push("sendRawTransaction");
        if (self.down) throw self.down;
        if (self.sendError) throw self.sendError;
        return `sig-from-${self.name}`;
      },
    };
    return partial as unknown as SolanaRpc;
  }
}

const failover = (eps: Scripted[], maxSlotLag = 50) =>
  new FailoverRpc(
    eps.map((e) => ({ url: `https://${e.name}.example.com/v2/SECRETKEY`, rpc: e.rpc() })),
    { maxSlotLag, probeMs: 0, commitment: "confirmed" },
  );

describe("FailoverRpc", () => {
  it("sends requests to the first endpoint while it is healthy", async () => {
    const [a, b] = [new Scripted("a"), new Scripted("b")];
    const rpc = failover([a, b]);
    expect(await rpc.getBlockHeight()).toBe(990);
    expect(a.calls).toEqual(["getBlockHeight"]);
    expect(b.calls).toEqual([]);
  });

  it("retries the same request on the next endpoint when the first fails, and keeps using the next until a probe finds the first answering again", async () => {
    const [a, b] = [new Scripted("a"), new Scripted("b")];
    const rpc = failover([a, b]);
    a.down = new TypeError("fetch failed");
    expect(await rpc.getBlockHeight()).toBe(990);
    expect(b.calls).toEqual(["getBlockHeight"]);
    expect(rpc.endpoints().map((e) => [e.healthy, e.active])).toEqual([
      [false, false],
      [true, true],
    ]);
    // Still down: the next request goes straight to b.
    a.calls = [];
    await rpc.getBlockHeight();
    expect(a.calls).toEqual([]);
    // a recovers: the probe marks it healthy and requests return to it.
    a.down = null;
    await rpc.probe();
    a.calls = [];
    await rpc.getBlockHeight();
    expect(a.calls).toEqual(["getBlockHeight"]);
    expect(rpc.endpoints()[0]!.active).toBe(true);
  });

  it("does not retry elsewhere when the endpoint answers a JSON-RPC error about the request", async () => {
    const [a, b] = [new Scripted("a"), new Scripted("b")];
    const rpc = failover([a, b]);
    a.down = new SolanaJSONRPCError({ code: -32602, message: "Invalid params" }, "failed to get block height");
    await expect(rpc.getBlockHeight()).rejects.toThrow(/Invalid params/);
    expect(b.calls).toEqual([]);
    expect(rpc.endpoints()[0]!.healthy).toBe(true);
  });

  it("treats 'node is behind' (-32005) as the endpoint's failure and asks the next", async () => {
    const [a, b] = [new Scripted("a"), new Scripted("b")];
    const rpc = failover([a, b]);
    a.down = new SolanaJSONRPCError({ code: -32005, message: "Node is behind by 500 slots" }, "failed to get block height");
    expect(await rpc.getBlockHeight()).toBe(990);
    expect(rpc.endpoints()[0]!.healthy).toBe(false);
  });

  it("marks an endpoint whose slot answer is not a count unhealthy and uses the other", async () => {
    const [a, b] = [new Scripted("a"), new Scripted("b")];
    const rpc = failover([a, b]);
    a.slot = -7;
    expect(await rpc.getSlot()).toBe(1000);
    expect(rpc.endpoints()[0]).toMatchObject({ healthy: false, lastError: expect.stringMatching(/not a count/) });
  });

  it("marks an endpoint more than maxSlotLag slots behind the others unhealthy at the probe, and healthy once it catches up", async () => {
    const [a, b] = [new Scripted("a"), new Scripted("b")];
    const rpc = failover([a, b], 50);
    a.slot = 900;
    b.slot = 1000;
    await rpc.probe();
    expect(rpc.endpoints()[0]).toMatchObject({ healthy: false, slotLag: 100, active: false });
    expect(rpc.endpoints()[1]).toMatchObject({ healthy: true, slotLag: 0, active: true });
    a.slot = 990;
    await rpc.probe();
    expect(rpc.endpoints()[0]).toMatchObject({ healthy: true, slotLag: 10, active: true });
  });

  it("broadcasts a transaction to every healthy endpoint and answers with the first acceptance", async () => {
    const [a, b, c] = [new Scripted("a"), new Scripted("b"), new Scripted("c")];
    const rpc = failover([a, b, c]);
    c.down = new TypeError("fetch failed");
    await rpc.getSlot(); // a answers; c is not known to be down yet
    await rpc.probe(); // now it is
    a.sendError = new TypeError("fetch failed");
    expect(await rpc.sendRawTransaction(new Uint8Array([1, 2, 3]))).toBe("sig-from-b");
    expect(a.calls.filter((x) => x === "sendRawTransaction")).toHaveLength(1);
    expect(b.calls.filter((x) => x === "sendRawTransaction")).toHaveLength(1);
    expect(c.calls.filter((x) => x === "sendRawTransaction")).toHaveLength(0);
  });

  it("answers a transaction refusal rather than an endpoint failure when every endpoint refuses", async () => {
    const [a, b] = [new Scripted("a"), new Scripted("b")];
    const rpc = failover([a, b]);
    a.sendError = new TypeError("fetch failed");
    b.sendError = new SolanaJSONRPCError({ code: -32002, message: "Transaction simulation failed" }, "failed to send transaction");
    await expect(rpc.sendRawTransaction(new Uint8Array([1]))).rejects.toThrow(/simulation failed/);
  });

  it("shows endpoints by origin only, never their path or key", async () => {
    const rpc = failover([new Scripted("a")]);
    expect(JSON.stringify(rpc.endpoints())).not.toContain("SECRETKEY");
    expect(rpc.endpoints()[0]!.url).toBe("https://a.example.com/…");
  });

  it("classifies fetch failures and malformed answers as the endpoint's, well-formed request errors as answers", () => {
    expect(isEndpointFailure(new TypeError("fetch failed"))).toBe(true);
    expect(isEndpointFailure(new SyntaxError("Unexpected token < in JSON"))).toBe(true);
    expect(isEndpointFailure(new SolanaJSONRPCError({ code: -32602, message: "bad" }, ""))).toBe(false);
    expect(isEndpointFailure(new SolanaJSONRPCError({ code: -32005, message: "behind" }, ""))).toBe(true);
  });
});

describe("FailoverRpc over HTTP", () => {
  let servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    servers = [];
  });
  const serve = async (answer: (body: { method: string; id: unknown }) => string): Promise<string> => {
    const server = createServer((req, res) => {
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString()));
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(answer(JSON.parse(text) as { method: string; id: unknown }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/key/SECRET`;
  };

  it("marks an endpoint answering garbage unhealthy and answers from the sound one", async () => {
    const garbage = await serve(() => "<html>hello</html>");
    const wrongShape = await serve((b) => JSON.stringify({ jsonrpc: "2.0", id: b.id, result: { slot: "many" } }));
    const sound = await serve((b) => JSON.stringify({ jsonrpc: "2.0", id: b.id, result: 4242 }));
    const make = (url: string) => ({ url, rpc: createSolanaRpc({ rpcUrl: url, commitment: "confirmed", rpcTimeoutMs: 2000 }) });
    const rpc = new FailoverRpc([make(garbage), make(wrongShape), make(sound)], { maxSlotLag: 50, probeMs: 0, commitment: "confirmed" });
    expect(await rpc.getSlot()).toBe(4242);
    const eps = rpc.endpoints();
    expect(eps.map((e) => e.healthy)).toEqual([false, false, true]);
    expect(eps[2]!.active).toBe(true);
    expect(JSON.stringify(eps)).not.toContain("SECRET");
  });

  it("fails over within one request's time-out when an endpoint does not answer", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    servers.push(silent);
    silent.on("connection", (s) => servers.length && s.setTimeout(10_000));
    const sound = await serve((b) => JSON.stringify({ jsonrpc: "2.0", id: b.id, result: 77 }));
    const make = (url: string) => ({ url, rpc: createSolanaRpc({ rpcUrl: url, commitment: "confirmed", rpcTimeoutMs: 300 }) });
    const rpc = new FailoverRpc([make(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`), make(sound)], {
      maxSlotLag: 50,
      probeMs: 0,
      commitment: "confirmed",
    });
    expect(await rpc.getSlot()).toBe(77);
    expect(rpc.endpoints()[0]).toMatchObject({ healthy: false, lastError: expect.stringMatching(/timed out/) });
    silent.closeAllConnections();
  });
});

describe("FailoverRpc ranking by latency", () => {
  it("moves requests to a later endpoint only when the first is far slower (twice and 100 ms more), not for jitter", async () => {
    let t = 0;
    const delays = { a: 0, b: 0 };
    const ep = (name: "a" | "b") => ({
      url: `https://${name}.example.com`,
      rpc: {
        async getBlockHeight() {
          t += delays[name];
          return name === "a" ? 1 : 2;
        },
        async getSlot() {
          t += delays[name];
          return 1000;
        },
      } as unknown as SolanaRpc,
    });
    const rpc = new FailoverRpc([ep("a"), ep("b")], { maxSlotLag: 50, probeMs: 0, commitment: "confirmed", now: () => t });
    delays.a = 40;
    delays.b = 10;
    await rpc.probe();
    expect(await rpc.getBlockHeight()).toBe(1);
    delays.a = 400;
    for (let i = 0; i < 10; i++) await rpc.probe();
    expect(await rpc.getBlockHeight()).toBe(2);
  });
});
