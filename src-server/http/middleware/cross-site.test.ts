import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { crossSiteGuard, isOperatorPath } from "./cross-site";

const request = (url: string, headers: Record<string, string>, remoteAddress = "127.0.0.1"): IncomingMessage =>
  ({ url, headers, socket: { remoteAddress } }) as unknown as IncomingMessage;

describe("crossSiteGuard: a request a page on another origin made the browser send", () => {
  const guard = crossSiteGuard({ allowedOrigins: [], trustProxy: false });

  it("answers requests without Origin or Sec-Fetch-Site (curl, SDKs, server-to-server)", () => {
    expect(guard.refusal(request("/login", { host: "127.0.0.1:8080" }))).toBeNull();
    expect(guard.refusal(request("/admin/relays", {}))).toBeNull();
  });

  it("answers the relay's own origin: http and the Host the request arrived with, default port or not", () => {
    expect(guard.refusal(request("/login", { host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080" }))).toBeNull();
    expect(guard.refusal(request("/login", { host: "LOCALHOST:8080", origin: "http://localhost:8080" }))).toBeNull();
    expect(guard.refusal(request("/login", { host: "relay.example.org:80", origin: "http://relay.example.org" }))).toBeNull();
    expect(guard.refusal(request("/login", { host: "[::1]:8080", origin: "http://[::1]:8080" }))).toBeNull();
  });

  it("refuses another origin: another port, another name, https without a trusted proxy saying so, null, or no Host to compare", () => {
    for (const [host, origin] of [
      ["127.0.0.1:8080", "http://127.0.0.1:3000"],
      ["127.0.0.1:8080", "http://localhost:8080"],
      ["127.0.0.1:8080", "https://evil.example"],
      ["relay.example.org", "https://relay.example.org"],
      ["127.0.0.1:8080", "null"],
      ["127.0.0.1:8080", "http://127.0.0.1:8080, http://evil.example"],
    ]) {
      const why = guard.refusal(request("/login", { host: host!, origin: origin! }));
      expect(why, `${origin} on ${host}`).toMatch(/is refused: this relay answers only its own origin .*http\.allowedOrigins/);
    }
    expect(guard.refusal(request("/login", { origin: "http://127.0.0.1:8080" }))).toMatch(/refused/);
  });

  it("answers a configured origin, and https when a trusted proxy forwards X-Forwarded-Proto: https", () => {
    const proxied = crossSiteGuard({ allowedOrigins: ["https://console.example.org"], trustProxy: ["127.0.0.1"] });
    expect(proxied.refusal(request("/admin/relays", { host: "127.0.0.1:8080", origin: "https://console.example.org" }))).toBeNull();
    const viaProxy = { host: "relay.example.org", origin: "https://relay.example.org", "x-forwarded-proto": "https" };
    expect(proxied.refusal(request("/login", viaProxy))).toBeNull();
    // The same header from a client that is not the proxy is not believed.
    expect(proxied.refusal(request("/login", viaProxy, "203.0.113.9"))).toMatch(/refused/);
    expect(crossSiteGuard({ allowedOrigins: [], trustProxy: 1 }).refusal(request("/login", viaProxy, "203.0.113.9"))).toBeNull();
  });

  it("refuses a foreign Sec-Fetch-Site without Origin (an <img>, a frame): operator paths always, public ones unless a link was followed", () => {
    const img = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" };
    const link = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" };
    const frame = { "sec-fetch-site": "same-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "iframe" };
    for (const path of ["/admin/relays", "/ADMIN/session", "/metrics", "/health/detail"]) {
      expect(guard.refusal(request(path, img)), path).toMatch(/refused/);
      expect(guard.refusal(request(path, link)), path).toMatch(/refused on the operator's endpoints/);
    }
    expect(guard.refusal(request("/version", img))).toMatch(/only a link followed to a public endpoint is answered/);
    expect(guard.refusal(request("/health", frame))).toMatch(/refused/);
    expect(guard.refusal(request("/health?x=1", link))).toBeNull();
    expect(guard.refusal(request("/admin/relays", { "sec-fetch-site": "same-origin" }))).toBeNull();
    expect(guard.refusal(request("/admin/relays", { "sec-fetch-site": "none" }))).toBeNull();
  });
});

describe("isOperatorPath", () => {
  it("names /admin, /metrics and /health/detail, in any case, and nothing public", () => {
    expect(["/admin", "/admin/x", "/Admin/x", "/metrics", "/health/detail"].every(isOperatorPath)).toBe(true);
    expect(["/administrator", "/health", "/login", "/console/", "/metricsx"].some(isOperatorPath)).toBe(false);
  });
});
