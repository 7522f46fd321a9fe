import type { MenuItemConstructorOptions } from "electron";
import type { RelayPhase } from "./relay-control";

export interface RelayMenuActions {
  start(): void;
  stop(): void;
  openConsole(): void;
  quit(): void;
}

const STATUS: Record<RelayPhase, string> = {
  stopped: "Relay stopped",
  starting: "Relay starting…",
  running: "Relay running",
  stopping: "Relay stopping…",
};

/** The relay's controls, the same in the tray and in the app menu: status, start, stop, console, quit. */
export function relayMenuItems(phase: RelayPhase, address: string | undefined, actions: RelayMenuActions): MenuItemConstructorOptions[] {
  return [
    { id: "status", label: phase === "running" && address ? `${STATUS[phase]} on ${address}` : STATUS[phase], enabled: false },
    { type: "separator" },
    { id: "start", label: "Start relay", enabled: phase === "stopped", click: () => actions.start() },
    { id: "stop", label: "Stop relay", enabled: phase === "running", click: () => actions.stop() },
    { id: "console", label: "Open console", enabled: phase === "running", click: () => actions.openConsole() },
    { type: "separator" },
    { id: "quit", label: "Quit", accelerator: "CmdOrCtrl+Q", click: () => actions.quit() },
  ];
}

/** The application menu: the relay's controls plus the standard edit and view roles (copy, paste, reload, zoom). */
export function appMenuTemplate(phase: RelayPhase, address: string | undefined, actions: RelayMenuActions): MenuItemConstructorOptions[] {
  return [
    { label: "Relay", submenu: relayMenuItems(phase, address, actions) },
    { role: "editMenu" },
    {
      label: "View",
      submenu: [
        { role: "reload" },
        { type: "separator" },
        { role: "resetZoom" },
        { role: "zoomIn" },
        { role: "zoomOut" },
        { type: "separator" },
        { role: "togglefullscreen" },
      ],
    },
  ];
}

/** A 16×16 tray icon (the console's gradient square), so the tray needs no file on disk. */
export const TRAY_ICON_DATA_URL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAnUlEQVR42qXT0QZCQRSF4f1GiUQikUhk6pymqSkSOSQSiegxZ06vs1s7PcGsi3X5/XdLOvsk3ZikF5P2d0kH2BAbbZOOsUlIOsVmIet8k3WBOZ+18lk8VooVWMMaAQJrxITBhxoBBh8twOBT3aow+FwhwODGAgy+rBBg8NUCDL5ZgMH3JQIMfliAwU+HwP9VRfjlWvld0l5Vgt/uI19SnXBaLDtGTQAAAABJRU5ErkJggg==";
