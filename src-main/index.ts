import { fileURLToPath } from "node:url";
import { app, BrowserWindow, dialog, session } from "electron";
import { createBridgeHandlers, registerBridgeHandlers } from "./ipc";
import { hardenSession, installSecurityGuards, isInsideApp } from "./security";
import { createServerHost, startRelay, stopServerBeforeQuit, type HostedRelay } from "./server-host";
import { createMainWindow } from "./window";

// Desktop mode: this process hosts the relay (the same server `npm start` runs) and
// the window shows the console that server serves. Everything on screen is therefore
// what the headless console shows, and is tested there with Chromium.

const preloadPath = fileURLToPath(new URL("../preload/index.cjs", import.meta.url));
const rendererDir = fileURLToPath(new URL("../renderer", import.meta.url));
const log = (line: string) => console.log(line);

if (!app.requestSingleInstanceLock()) {
  // One relay per data dir: a second launch focuses the first window instead.
  app.quit();
} else {
  run();
}

function run(): void {
  const host = createServerHost<HostedRelay>(() =>
    startRelay({ env: process.env, userDataDir: app.getPath("userData"), consoleDir: rendererDir, log }),
  );
  const consoleUrl = () => host.current()?.consoleUrl ?? "";
  let win: BrowserWindow | undefined;

  installSecurityGuards(app, consoleUrl);
  registerBridgeHandlers(
    createBridgeHandlers({
      apiBase: () => host.current()?.apiBase,
      appInfo: () => ({
        name: app.getName(),
        version: app.getVersion(),
        electron: process.versions.electron ?? "",
        chrome: process.versions.chrome ?? "",
        node: process.versions.node,
        platform: process.platform,
        dataDir: host.current()?.dataDir ?? "",
      }),
    }),
    (frameUrl) => isInsideApp(frameUrl, consoleUrl()),
  );
  stopServerBeforeQuit(app, () => host.stop(), log);

  const openWindow = () => {
    const url = consoleUrl();
    if (!url) return;
    win = createMainWindow({ url, preload: preloadPath });
    win.on("closed", () => (win = undefined));
  };

  app.on("second-instance", () => {
    if (!win) return openWindow();
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  // The relay lives as long as its window: closing it stops the server, on every platform.
  app.on("window-all-closed", () => app.quit());
  app.on("activate", () => {
    if (!win) openWindow();
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => app.quit());

  void app.whenReady().then(async () => {
    hardenSession(session.defaultSession, consoleUrl);
    try {
      await host.start();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log(`relay failed to start: ${message}`);
      dialog.showErrorBox("The relay could not start", message);
      app.exit(1);
      return;
    }
    openWindow();
  });
}
