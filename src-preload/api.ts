/**
 * The desktop bridge contract: everything the renderer may ask of Electron main.
 * The preload exposes exactly these methods (and `satisfies DesktopBridge`), main
 * registers one handler per method (src-main/ipc.ts). There is no generic
 * invoke(channel, ...args): adding a capability means adding it here.
 *
 * Plain TypeScript with no Node or DOM types: it is compiled for main, preload and
 * the renderer alike.
 */

/** What the console shows about the desktop shell it runs in. */
export interface AppInfo {
  name: string;
  /** package.json version, major.minor.patch. */
  version: string;
  electron: string;
  chrome: string;
  node: string;
  platform: string;
  /** Where the relay keeps its store, keys and logs. */
  dataDir: string;
}

export interface DesktopBridge {
  /** Origin of the in-process relay API, e.g. `http://127.0.0.1:8080` (no trailing slash). */
  getApiBase(): Promise<string>;
  getAppInfo(): Promise<AppInfo>;
  /**
   * The console's operator token when the desktop host holds it (kept encrypted
   * with Electron's safeStorage, or set by RELAY_OPERATOR_TOKEN), so the window
   * signs in by itself; null when only its hash exists and the operator must
   * type it. Never put in a MAIN_VITE_* variable or written anywhere by the renderer.
   */
  getOperatorToken(): Promise<string | null>;
  /** A system notification (a new alert while the console is open); main checks and shortens the text. */
  notify(n: DesktopNotification): Promise<void>;
}

/** What the console may show as a system notification: plain text only. */
export interface DesktopNotification {
  title: string;
  body: string;
}

/** The name under which the preload exposes the bridge: `window.relayDesktop`. */
export const BRIDGE_KEY = "relayDesktop";

/** One IPC channel per bridge method. */
export const BRIDGE_CHANNELS = {
  getApiBase: "relay:get-api-base",
  getAppInfo: "relay:get-app-info",
  getOperatorToken: "relay:get-operator-token",
  notify: "relay:notify",
} as const satisfies { readonly [K in keyof DesktopBridge]: string };

/** What main implements for each method: the same signature, sync or async. */
export type BridgeHandlers = {
  [K in keyof DesktopBridge]: (...args: Parameters<DesktopBridge[K]>) => Awaited<ReturnType<DesktopBridge[K]>> | ReturnType<DesktopBridge[K]>;
};
