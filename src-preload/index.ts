import { contextBridge, ipcRenderer } from "electron";
import { BRIDGE_CHANNELS, BRIDGE_KEY, type DesktopBridge } from "./api";

// Sandboxed preload: only `electron`'s renderer modules are available, and this file
// is bundled to CommonJS. Each method maps to exactly one channel; nothing else leaks.
const bridge = {
  getApiBase: () => ipcRenderer.invoke(BRIDGE_CHANNELS.getApiBase),
  getAppInfo: () => ipcRenderer.invoke(BRIDGE_CHANNELS.getAppInfo),
  getOperatorToken: () => ipcRenderer.invoke(BRIDGE_CHANNELS.getOperatorToken),
  notify: (n) => ipcRenderer.invoke(BRIDGE_CHANNELS.notify, n),
} satisfies DesktopBridge;

contextBridge.exposeInMainWorld(BRIDGE_KEY, bridge);
