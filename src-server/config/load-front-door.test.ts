import { describe, expect, it } from "vitest";
import { withConfigFile as withFile } from "../../tests/support/config-file";
import { describeConfig, loadConfig } from "./load";

describe("loadConfig: allowed origins, the metrics listener and IPv6 sites (docs/security.md, docs/operations.md)", () => {
  it("allows no other origin, listens for metrics on 127.0.0.1:9464 and gives a /48 eight times a client's limit by default", () => {
    const c = loadConfig({});
    expect(c.http.allowedOrigins).toEqual([]);
    expect(c.metrics).toMatchObject({ enabled: true, host: "127.0.0.1", port: 9464, portConfigured: false });
    expect(c.rateLimits.ipv6Per48Multiple).toBe(8);
    expect(describeConfig(c)).toContain("metrics: listener 127.0.0.1:9464 (no token), /metrics on the main port with the operator token");
  });

  it("reads http.allowedOrigins as origins (normalized) from the file, and RELAY_ALLOWED_ORIGINS over it", () => {
    const file = withFile({ http: { allowedOrigins: ["https://Relay.Example.org/", "http://127.0.0.1:3000", "https://x.example:443"] } });
    expect(loadConfig(file).http.allowedOrigins).toEqual(["https://relay.example.org", "http://127.0.0.1:3000", "https://x.example"]);
    expect(loadConfig({ ...file, RELAY_ALLOWED_ORIGINS: "https://a.example, https://b.example:8443" }).http.allowedOrigins).toEqual([
      "https://a.example",
      "https://b.example:8443",
    ]);
  });

  it("refuses an allowed origin with a path, a query, another scheme or a wildcard, naming the key", () => {
    for (const bad of ["https://relay.example.org/console", "https://relay.example.org?x", "ftp://relay.example.org", "*", "null", "relay.example.org"]) {
      expect(() => loadConfig(withFile({ http: { allowedOrigins: [bad] } })), bad).toThrow(/config http\.allowedOrigins\[0\]: must be an origin/);
    }
  });

  it("sets the metrics listener from the file or RELAY_METRICS_HOST/PORT (0: a free port, off or null: none)", () => {
    expect(loadConfig(withFile({ metrics: { host: "10.0.0.5", port: 9100 } })).metrics).toMatchObject({ host: "10.0.0.5", port: 9100, portConfigured: true });
    expect(loadConfig(withFile({ metrics: { port: null } })).metrics.port).toBeNull();
    expect(loadConfig({ RELAY_METRICS_PORT: "off" }).metrics.port).toBeNull();
    expect(loadConfig({ RELAY_METRICS_PORT: "0", RELAY_METRICS_HOST: "::1" }).metrics).toMatchObject({ host: "::1", port: 0, portConfigured: true });
    expect(() => loadConfig({ RELAY_METRICS_PORT: "70000" })).toThrow(/config RELAY_METRICS_PORT: must be an integer from 0 to 65535/);
  });

  it("refuses metrics.loopbackWithoutToken true (the removed exemption a local proxy opened) and accepts false", () => {
    expect(() => loadConfig(withFile({ metrics: { loopbackWithoutToken: true } }))).toThrow(
      /config metrics\.loopbackWithoutToken: true is no longer supported: \/metrics on the main port always takes the operator token/,
    );
    expect(loadConfig(withFile({ metrics: { loopbackWithoutToken: false } })).metrics.enabled).toBe(true);
  });

  it("reads rateLimits.ipv6Per48Multiple", () => {
    expect(loadConfig(withFile({ rateLimits: { ipv6Per48Multiple: 3 } })).rateLimits.ipv6Per48Multiple).toBe(3);
    expect(() => loadConfig(withFile({ rateLimits: { ipv6Per48Multiple: 0 } }))).toThrow(/config rateLimits\.ipv6Per48Multiple: must be an integer from 1/);
  });
});
