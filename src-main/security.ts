import type { App, Session, WebContents } from "electron";
import { CONSOLE_CONTENT_SECURITY_POLICY } from "../src-shared/console-csp";

/**
 * Security guards for the desktop shell. The window shows the console that the
 * in-process relay serves at `<relay origin>/console/`, so "the app" is exactly that
 * origin and path prefix: anything else is refused. The pure decisions are exported
 * for tests; the install functions only wire them to Electron.
 */

/** Where the console lives, e.g. `http://127.0.0.1:8080/console/`; empty until the server runs. */
export type AppUrlSource = () => string;

/** True when `target` is inside the console: same origin, path under the console's path. */
export function isInsideApp(target: string, appUrl: string): boolean {
  if (!appUrl) return false;
  let t: URL;
  let a: URL;
  try {
    t = new URL(target);
    a = new URL(appUrl);
  } catch {
    return false;
  }
  if (t.protocol !== "http:" && t.protocol !== "https:") return false;
  if (t.origin !== a.origin) return false;
  if (t.username || t.password) return false;
  return t.pathname === a.pathname.replace(/\/$/, "") || t.pathname.startsWith(a.pathname);
}

/** True when `url` (a full URL or a bare origin) has the console's origin. */
export function isAppOrigin(url: string, appUrl: string): boolean {
  if (!appUrl) return false;
  try {
    return new URL(url).origin === new URL(appUrl).origin;
  } catch {
    return false;
  }
}

/** Navigation decision: stay inside the console or do not go at all. */
export function navigationDecision(target: string, appUrl: string): "allow" | "deny" {
  return isInsideApp(target, appUrl) ? "allow" : "deny";
}

/** The policy for the console's documents: its own scripts and styles, its own API (the relay sends the same). */
export function contentSecurityPolicy(): string {
  return CONSOLE_CONTENT_SECURITY_POLICY;
}

export type ResponseHeaders = Record<string, string[]>;

/**
 * Headers for a response the window receives: the console's documents get our CSP
 * added (a stricter policy sent by the server still applies; policies intersect).
 * Other responses pass unchanged.
 */
export function withSecurityHeaders(url: string, resourceType: string, headers: ResponseHeaders, appUrl: string): ResponseHeaders {
  const isDocument = resourceType === "mainFrame" || resourceType === "subFrame";
  if (!isDocument || !isInsideApp(url, appUrl)) return headers;
  const out: ResponseHeaders = { ...headers };
  const existing = Object.keys(out).find((k) => k.toLowerCase() === "content-security-policy");
  const key = existing ?? "Content-Security-Policy";
  out[key] = [...(out[key] ?? []), contentSecurityPolicy()];
  const nosniff = Object.keys(out).some((k) => k.toLowerCase() === "x-content-type-options");
  if (!nosniff) out["X-Content-Type-Options"] = ["nosniff"];
  return out;
}

/** Permissions the console may use: writing to the clipboard (copy buttons). Nothing else. */
const GRANTED_PERMISSIONS: ReadonlySet<string> = new Set(["clipboard-sanitized-write"]);

export function permissionDecision(permission: string, requestingUrl: string, appUrl: string): boolean {
  return GRANTED_PERMISSIONS.has(permission) && isAppOrigin(requestingUrl, appUrl);
}

/** Every web contents: no popups, no webviews, no navigation out of the console. */
export function hardenWebContents(contents: WebContents, appUrl: AppUrlSource): void {
  contents.setWindowOpenHandler(() => ({ action: "deny" }));
  const guard = (event: { preventDefault(): void }, url: string) => {
    if (navigationDecision(url, appUrl()) === "deny") event.preventDefault();
  };
  contents.on("will-navigate", (event, url) => guard(event, url));
  contents.on("will-frame-navigate", (event) => guard(event, event.url));
  contents.on("will-redirect", (event, url) => guard(event, url));
  contents.on("will-attach-webview", (event) => event.preventDefault());
}

export function installSecurityGuards(app: App, appUrl: AppUrlSource): void {
  app.on("web-contents-created", (_event, contents) => hardenWebContents(contents, appUrl));
}

/** Session-wide: permission handlers and the CSP header on the console's documents. */
export function hardenSession(session: Session, appUrl: AppUrlSource): void {
  session.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(permissionDecision(permission, details.requestingUrl ?? contents.getURL(), appUrl()));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => permissionDecision(permission, requestingOrigin, appUrl()));
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: withSecurityHeaders(details.url, details.resourceType, details.responseHeaders ?? {}, appUrl()),
    });
  });
}
