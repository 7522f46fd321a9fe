import { ipcMain } from "electron";
import { BRIDGE_CHANNELS, type AppInfo, type BridgeHandlers, type DesktopBridge, type DesktopNotification } from "../src-preload/api";

export interface BridgeDeps {
  /** The relay's reachable origin, undefined while it is not running. */
  apiBase(): string | undefined;
  appInfo(): AppInfo;
  /** The operator token the host holds for the running relay, or null (the console then asks for it). */
  operatorToken(): string | null;
  /** Shows a system notification (already checked: plain, bounded text). */
  showNotification(n: DesktopNotification): void;
}

/** The renderer's notification, checked: two strings, cut to what a notification shows. Anything else is refused. */
export function checkNotification(arg: unknown): DesktopNotification {
  if (typeof arg !== "object" || arg === null) throw new Error("notify: expects { title, body }");
  const { title, body } = arg as Record<string, unknown>;
  if (typeof title !== "string" || typeof body !== "string") throw new Error("notify: title and body must be strings");
  return { title: title.slice(0, 120), body: body.slice(0, 400) };
}

/** One handler per bridge method (the contract in src-preload/api.ts). */
export function createBridgeHandlers(deps: BridgeDeps): BridgeHandlers {
  return {
    getApiBase: () => {
      const base = deps.apiBase();
      if (!base) throw new Error("the relay server is not running");
      return base;
    },
    getAppInfo: () => deps.appInfo(),
    getOperatorToken: () => deps.operatorToken(),
    notify: (n) => deps.showNotification(checkNotification(n)),
  };
}

/**
 * Register the handlers on ipcMain. A call from any frame that is not the console
 * (a foreign origin, a frame that navigated away) is refused. Renderer arguments
 * are passed only to a method that takes one (notify), whose handler checks it
 * (checkNotification). Returns a function that removes the handlers.
 */
export function registerBridgeHandlers(handlers: BridgeHandlers, isTrustedSender: (frameUrl: string) => boolean): () => void {
  const names = Object.keys(BRIDGE_CHANNELS) as (keyof DesktopBridge)[];
  for (const name of names) {
    const channel = BRIDGE_CHANNELS[name];
    ipcMain.handle(channel, (event, ...args: unknown[]) => {
      const frameUrl = event.senderFrame?.url ?? "";
      if (!isTrustedSender(frameUrl)) throw new Error(`${channel} refused for ${frameUrl || "an unknown frame"}`);
      if (name === "notify") return handlers.notify(checkNotification(args[0]));
      return (handlers[name] as () => unknown)();
    });
  }
  return () => {
    for (const name of names) ipcMain.removeHandler(BRIDGE_CHANNELS[name]);
  };
}
