import { describe, expect, it } from "vitest";
import { withConfigFile as withFile } from "../../tests/support/config-file";
import { describeConfig, loadConfig } from "./load";

describe("loadConfig: client address, connection and per-client limits (docs/security.md)", () => {
  it("trusts no proxy, caps connections, tokens and verifications, and times requests out by default", () => {
    const c = loadConfig({});
    expect(c.http).toMatchObject({
      trustProxy: false,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 10_000,
      maxConnectionsPerIp: 64,
    });
    expect(c.rateLimits).toMatchObject({ verificationsPerIp: 4, tokensPerIpPerHour: 120, liveTokensPerWallet: 20 });
    expect(c.verifier.maxQueue).toBe(1024);
  });

  it("refuses trustProxy true with a message that says what to set instead", () => {
    expect(() => loadConfig(withFile({ http: { trustProxy: true } }))).toThrow(/config http\.trustProxy: true is refused: .*number of proxies.*addresses/);
  });

  it("takes a hop count or a list of proxy addresses and CIDR ranges, and names a bad entry", () => {
    expect(loadConfig(withFile({ http: { trustProxy: 1 } })).http.trustProxy).toBe(1);
    expect(loadConfig(withFile({ http: { trustProxy: 0 } })).http.trustProxy).toBe(false);
    expect(loadConfig(withFile({ http: { trustProxy: ["10.0.0.5", "10.1.0.0/16", "fd00::/8", "loopback"] } })).http.trustProxy).toEqual([
      "10.0.0.5",
      "10.1.0.0/16",
      "fd00::/8",
      "loopback",
    ]);
    expect(() => loadConfig(withFile({ http: { trustProxy: ["10.0.0.0/33"] } }))).toThrow(/config http\.trustProxy\[0\]: must be an IP address or CIDR range/);
    expect(() => loadConfig(withFile({ http: { trustProxy: ["proxy.example.org"] } }))).toThrow(/http\.trustProxy\[0\]/);
    expect(() => loadConfig(withFile({ http: { trustProxy: 11 } }))).toThrow(/http\.trustProxy: must be an integer from 0 to 10/);
    expect(() => loadConfig(withFile({ http: { trustProxy: [] } }))).toThrow(/http\.trustProxy: must be false, a number/);
  });

  it("reads the timeouts, the connection cap, the verifier queue and the per-client caps, and checks them", () => {
    const c = loadConfig(
      withFile({
        http: { headersTimeoutMs: 500, requestTimeoutMs: 1000, keepAliveTimeoutMs: 2000, maxConnectionsPerIp: 3 },
        rateLimits: { verificationsPerIp: 2, tokensPerIpPerHour: 5, liveTokensPerWallet: 1 },
        verifier: { maxQueue: 0 },
      }),
    );
    expect(c.http).toMatchObject({ headersTimeoutMs: 500, requestTimeoutMs: 1000, keepAliveTimeoutMs: 2000, maxConnectionsPerIp: 3 });
    expect(c.rateLimits).toMatchObject({ verificationsPerIp: 2, tokensPerIpPerHour: 5, liveTokensPerWallet: 1 });
    expect(c.verifier.maxQueue).toBe(0);
    expect(() => loadConfig(withFile({ http: { headersTimeoutMs: 5000, requestTimeoutMs: 1000 } }))).toThrow(
      /config http\.headersTimeoutMs: must not exceed http\.requestTimeoutMs/,
    );
    expect(() => loadConfig(withFile({ rateLimits: { verificationsPerIp: 0 } }))).toThrow(/rateLimits\.verificationsPerIp/);
  });

  it("prints who is counted and how: trusted proxies, the connection cap, the time-outs and the per-client caps", () => {
    const text = describeConfig(loadConfig(withFile({ http: { trustProxy: ["10.0.0.5"] } })));
    expect(text).toContain(
      'config: http: trustProxy=["10.0.0.5"] maxConnectionsPerIp=64 timeouts headers=10000ms request=30000ms keepAlive=10000ms; verifier queue 1024',
    );
    expect(text).toContain("per address: 120 tokens/h, 4 proofs in the verifier; 20 live tokens per wallet");
    expect(describeConfig(loadConfig({ RELAY_RATE_LIMITS: "off" }))).toMatch(/config: rateLimits: off\nconfig: http: trustProxy=false maxConnectionsPerIp=off/);
  });
});
