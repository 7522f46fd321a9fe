import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { requestLog, type RequestLine } from "./request-log";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A server whose every request is begun by the log and answered by `answer`; returns what the log counted and wrote. */
async function serve(answer: (res: import("node:http").ServerResponse, settle: () => void) => void, settledByCaller: boolean) {
  const done: RequestLine[] = [];
  const lines: RequestLine[] = [];
  const log = requestLog({ done: (r) => done.push(r), line: (r) => lines.push(r), requests: "all", clientIp: null });
  const server = createServer((req, res) => {
    log.begin(req, res, "/get_proof/:index", undefined, settledByCaller);
    answer(res, () => log.settle(res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, done, lines };
}

describe("request log", () => {
  it("counts and logs an answer settled by its caller once, whether it was ended before or after settle", async () => {
    const ended = await serve((res, settle) => {
      res.end("now");
      settle();
    }, true);
    const later = await serve((res, settle) => {
      settle();
      setTimeout(() => res.end("later"), 20);
    }, true);
    for (const s of [ended, later]) {
      const r = await fetch(`${s.url}/get_proof/1`, { method: "POST" });
      await r.text();
      await new Promise((r) => setTimeout(r, 30));
      expect(s.done).toHaveLength(1);
      expect(s.lines).toHaveLength(1);
      expect(s.done[0]).toMatchObject({ method: "POST", route: "/get_proof/:index", status: 200, reqId: r.headers.get("x-request-id") });
    }
    expect(later.done[0]!.ms).toBeGreaterThan(0);
  });

  it("without settledByCaller counts the answer when it finishes", async () => {
    const s = await serve((res) => res.end("x"), false);
    await (await fetch(`${s.url}/get_proof/2`, { method: "POST" })).text();
    await new Promise((r) => setTimeout(r, 30));
    expect(s.done.map((r) => r.status)).toEqual([200]);
  });

  it("gives every request its own 36-character id, answered as X-Request-Id", async () => {
    const s = await serve((res, settle) => {
      res.end();
      settle();
    }, true);
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${s.url}/get_proof/${i}`, { method: "POST" });
      await r.text();
      ids.add(r.headers.get("x-request-id")!);
    }
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(s.done.map((r) => r.reqId)).toEqual([...ids]);
  });
});
