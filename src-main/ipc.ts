import { ipcMain } from "electron";
import { BRIDGE_CHANNELS, type AppInfo, type BridgeHandlers, type DesktopBridge } from "../src-preload/api";

export interface BridgeDeps {
  /** The relay's reachable origin, undefined while it is not running. */
  apiBase(): string | undefined;
  appInfo(): AppInfo;
  /** The operator token the host holds for the running relay, or null (the console then asks for it). */
  operatorToken(): string | null;
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
  };
}

/**
 * Register the handlers on ipcMain. A call from any frame that is not the console
 * (a foreign origin, a frame that navigated away) is refused. Renderer arguments
 * are never passed through: every method takes none today, and a method that does
 * must validate them here. Returns a function that removes the handlers.
 */
export function registerBridgeHandlers(
  handlers: BridgeHandlers,
  isTrustedSender: (frameUrl: string) => boolean,
): () => void {
  const names = Object.keys(BRIDGE_CHANNELS) as (keyof DesktopBridge)[];
  for (const name of names) {
    const channel = BRIDGE_CHANNELS[name];
    ipcMain.handle(channel, (event) => {
      const frameUrl = event.senderFrame?.url ?? "";
      if (!isTrustedSender(frameUrl)) throw new Error(`${channel} refused for ${frameUrl || "an unknown frame"}`);
      return handlers[name]();
    });
  }
  return () => {
    for (const name of names) ipcMain.removeHandler(BRIDGE_CHANNELS[name]);
  };
}
