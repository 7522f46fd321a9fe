import { describe, expect, it, vi } from "vitest";
import { contentSecurityPolicy, hardenSession, hardenWebContents, isAppOrigin, navigationDecision, permissionDecision, withSecurityHeaders } from "./security";

vi.mock("electron", () => ({})); // security.ts needs only Electron's types

const APP = "http://127.0.0.1:8080/console/";

describe("navigation guard", () => {
  it.each([
    ["http://127.0.0.1:8080/console/", "allow"],
    ["http://127.0.0.1:8080/console/#/pools", "allow"],
    ["http://127.0.0.1:8080/console/index.html?x=1", "allow"],
    ["http://127.0.0.1:8080/console", "allow"],
    ["http://127.0.0.1:8080/health", "deny"],
    ["http://127.0.0.1:8080/consoleX/", "deny"],
    ["http://127.0.0.1:8081/console/", "deny"],
    ["https://127.0.0.1:8080/console/", "deny"],
    ["http://localhost:8080/console/", "deny"],
    ["http://127.0.0.1:8080@evil.example/console/", "deny"],
    ["http://user:pw@127.0.0.1:8080/console/", "deny"],
    ["https://evil.example/console/", "deny"],
    ["file:///etc/passwd", "deny"],
    ["javascript:alert(1)", "deny"],
    ["data:text/html,<h1>x</h1>", "deny"],
    ["not a url", "deny"],
  ])("%s -> %s", (target, expected) => {
    expect(navigationDecision(target, APP)).toBe(expected);
  });

  it("denies everything before the server is up", () => {
    expect(navigationDecision("http://127.0.0.1:8080/console/", "")).toBe("deny");
  });

  it("compares origins for permission requests, which carry no path", () => {
    expect(isAppOrigin("http://127.0.0.1:8080", APP)).toBe(true);
    expect(isAppOrigin("http://127.0.0.1:9999", APP)).toBe(false);
    expect(isAppOrigin("", APP)).toBe(false);
  });
});

describe("permissions", () => {
  it("grants only clipboard writes, only to the console", () => {
    expect(permissionDecision("clipboard-sanitized-write", "http://127.0.0.1:8080/console/", APP)).toBe(true);
    expect(permissionDecision("clipboard-sanitized-write", "http://127.0.0.1:8080", APP)).toBe(true);
    expect(permissionDecision("clipboard-sanitized-write", "https://evil.example", APP)).toBe(false);
    for (const p of ["media", "geolocation", "notifications", "openExternal", "clipboard-read"]) {
      expect(permissionDecision(p, "http://127.0.0.1:8080/console/", APP)).toBe(false);
    }
  });
});

describe("security headers", () => {
  it("adds the CSP to the console's documents and keeps the server's own", () => {
    const out = withSecurityHeaders(APP, "mainFrame", { "content-security-policy": ["default-src 'self'"] }, APP);
    expect(out["content-security-policy"]).toEqual(["default-src 'self'", contentSecurityPolicy()]);
    expect(out["X-Content-Type-Options"]).toEqual(["nosniff"]);
  });

  it("leaves API responses and foreign documents alone", () => {
    const headers = { "content-type": ["application/json"] };
    expect(withSecurityHeaders("http://127.0.0.1:8080/health/detail", "xhr", headers, APP)).toBe(headers);
    expect(withSecurityHeaders("https://evil.example/", "mainFrame", headers, APP)).toBe(headers);
  });

  it("allows only the console's own scripts, styles and API", () => {
    const csp = contentSecurityPolicy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe");
  });
});

type Listener = (...args: any[]) => void;

function fakeContents() {
  const listeners = new Map<string, Listener>();
  let openHandler: (() => unknown) | undefined;
  return {
    listeners,
    openHandler: () => openHandler?.(),
    setWindowOpenHandler: (h: () => unknown) => (openHandler = h),
    on: (event: string, l: Listener) => listeners.set(event, l),
    getURL: () => APP,
  };
}

const fakeEvent = (extra: object = {}) => ({ preventDefault: vi.fn(), ...extra });

describe("hardenWebContents", () => {
  it("denies popups, webviews and navigation out of the console", () => {
    const contents = fakeContents();
    hardenWebContents(contents as never, () => APP);
    expect(contents.openHandler()).toEqual({ action: "deny" });

    const away = fakeEvent();
    contents.listeners.get("will-navigate")!(away, "https://evil.example/");
    expect(away.preventDefault).toHaveBeenCalled();

    const inside = fakeEvent();
    contents.listeners.get("will-navigate")!(inside, "http://127.0.0.1:8080/console/#/pools");
    expect(inside.preventDefault).not.toHaveBeenCalled();

    const frame = fakeEvent({ url: "https://evil.example/frame" });
    contents.listeners.get("will-frame-navigate")!(frame);
    expect(frame.preventDefault).toHaveBeenCalled();

    const redirect = fakeEvent();
    contents.listeners.get("will-redirect")!(redirect, "http://127.0.0.1:8080/elsewhere");
    expect(redirect.preventDefault).toHaveBeenCalled();

    const webview = fakeEvent();
    contents.listeners.get("will-attach-webview")!(webview);
    expect(webview.preventDefault).toHaveBeenCalled();
  });
});

describe("hardenSession", () => {
  it("wires permission handlers and the header hook", () => {
    let request: Listener | undefined;
    let check: ((...a: any[]) => boolean) | undefined;
    let headers: Listener | undefined;
    const session = {
      setPermissionRequestHandler: (h: Listener) => (request = h),
      setPermissionCheckHandler: (h: (...a: any[]) => boolean) => (check = h),
      webRequest: { onHeadersReceived: (h: Listener) => (headers = h) },
    };
    hardenSession(session as never, () => APP);

    const granted = vi.fn();
    request!({ getURL: () => APP }, "clipboard-sanitized-write", granted, { requestingUrl: APP });
    expect(granted).toHaveBeenCalledWith(true);
    const denied = vi.fn();
    request!({ getURL: () => APP }, "media", denied, { requestingUrl: APP });
    expect(denied).toHaveBeenCalledWith(false);
    expect(check!(null, "clipboard-sanitized-write", "http://127.0.0.1:8080")).toBe(true);
    expect(check!(null, "geolocation", "http://127.0.0.1:8080")).toBe(false);

    const callback = vi.fn();
    headers!({ url: APP, resourceType: "mainFrame", responseHeaders: {} }, callback);
    expect(callback.mock.calls[0]![0].responseHeaders["Content-Security-Policy"]).toEqual([contentSecurityPolicy()]);
  });
});
