import { BRIDGE_KEY, type DesktopBridge } from "../../src-preload/api";

declare global {
  interface Window {
    /** Present only inside the desktop app (exposed by src-preload). */
    [BRIDGE_KEY]?: DesktopBridge;
  }
}

/** The desktop bridge, or undefined in a plain browser. */
export function desktopBridge(): DesktopBridge | undefined {
  return window[BRIDGE_KEY];
}
