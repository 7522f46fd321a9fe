import { mkdtempSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRelay, type RelayProcess } from "../support/relay-process";

/**
 * docs/security.md, "Connections": a per-address connection cap and deliberate
 * time-outs, so idle or half-sent sockets cannot pile up. This relay allows 4
 * connections per address and 1 s for a request's headers.
 */

let relay: RelayProcess;
let port: number;

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "connections-"));
  const config = path.join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ http: { maxConnectionsPerIp: 4, headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 20_000 } }));
  relay = await startRelay({ RELAY_CONFIG: config });
  port = Number(new URL(relay.url).port);
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

interface Conn {
  socket: net.Socket;
  /** Everything the server sent until it closed the connection. */
  closed: Promise<string>;
  /** Resolves with the first response's bytes, or null if the connection closed before any. */
  firstResponse: Promise<string | null>;
}

function connect(localAddress: string): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress });
    let received = "";
    let onData: (() => void) | null = null;
    const firstResponse = new Promise<string | null>((res) => {
      onData = () => {
        if (/\r\n\r\n/.test(received)) res(received);
      };
      socket.once("close", () => res(received || null));
    });
    const closed = new Promise<string>((res) => socket.once("close", () => res(received)));
    socket.on("data", (d: Buffer) => {
      received += d.toString("latin1");
      onData?.();
    });
    socket.once("error", () => {});
    socket.once("connect", () => resolve({ socket, closed, firstResponse }));
    socket.once("error", reject);
  });
}

const versionRequest = `GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`;

describe("connections (docs/security.md)", () => {
  it("closes the connections one address opens over http.maxConnectionsPerIp, while another address is served", async () => {
    const conns = await Promise.all(Array.from({ length: 6 }, () => connect("127.0.0.41")));
    for (const c of conns) c.socket.write(versionRequest);
    const answers = await Promise.all(conns.map((c) => c.firstResponse));
    const served = answers.filter((a) => a !== null && a.startsWith("HTTP/1.1 200"));
    expect(served).toHaveLength(4);
    expect(answers.filter((a) => a === null)).toHaveLength(2);

    // The four kept-alive connections hold the address's share: a fifth is closed unanswered, another address is answered.
    const fifth = await connect("127.0.0.41");
    fifth.socket.write(versionRequest);
    expect(await fifth.firstResponse).toBeNull();
    const other = await connect("127.0.0.42");
    other.socket.write(versionRequest);
    expect(await other.firstResponse).toMatch(/^HTTP\/1\.1 200/);
    other.socket.destroy();

    // Once the address closes its connections it is served again.
    for (const c of conns) c.socket.destroy();
    await Promise.all(conns.map((c) => c.closed));
    let again: string | null = null;
    for (let attempt = 0; attempt < 20 && again === null; attempt++) {
      const c = await connect("127.0.0.41");
      c.socket.write(versionRequest);
      again = await c.firstResponse;
      c.socket.destroy();
    }
    expect(again).toMatch(/^HTTP\/1\.1 200/);
  });

  it("closes a connection whose headers do not arrive within http.headersTimeoutMs, and one that sends nothing", async () => {
    const partial = await connect("127.0.0.43");
    partial.socket.write("GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const silent = await connect("127.0.0.44");
    // Both are answered 408 and closed (the relay used to hold them for 66 s).
    expect(await partial.closed).toMatch(/^HTTP\/1\.1 408 /);
    expect(await silent.closed).toMatch(/^HTTP\/1\.1 408 /);
  });
});
