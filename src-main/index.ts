import { fileURLToPath } from "node:url";
import { app, BrowserWindow, dialog, Notification, safeStorage, session } from "electron";
import { createBridgeHandlers, registerBridgeHandlers } from "./ipc";
import { createRelayController } from "./relay-control";
import { installRelayMenus } from "./relay-menu";
import { desktopSecretStore } from "./safe-storage-secrets";
import { hardenSession, installSecurityGuards, isInsideApp } from "./security";
import { startRelay, stopServerBeforeQuit, type HostedRelay } from "./server-host";
import { createMainWindow } from "./window";

// Desktop mode: this process hosts the relay (the same server `npm start` runs) and
// the window shows the console that server serves. Everything on screen is therefore
// what the headless console shows, and is tested there with Chromium. The tray and the
// Relay menu stop and start the server; keys are encrypted at rest with safeStorage.

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
  const relay = createRelayController<HostedRelay>(() =>
    startRelay({
      env: process.env,
      userDataDir: app.getPath("userData"),
      consoleDir: rendererDir,
      log,
      keyStorage: (dataDir) => desktopSecretStore(dataDir, safeStorage, log),
    }),
  );
  const consoleUrl = () => relay.current()?.consoleUrl ?? "";
  let win: BrowserWindow | undefined;

  installSecurityGuards(app, consoleUrl);
  registerBridgeHandlers(
    createBridgeHandlers({
      apiBase: () => relay.current()?.apiBase,
      appInfo: () => ({
        name: app.getName(),
        version: app.getVersion(),
        electron: process.versions.electron ?? "",
        chrome: process.versions.chrome ?? "",
        node: process.versions.node,
        platform: process.platform,
        dataDir: relay.current()?.dataDir ?? "",
      }),
      operatorToken: () => relay.current()?.operatorToken ?? null,
      // A new alert while the console is open (src-renderer/features/alerts).
      showNotification: (n) => {
        if (Notification.isSupported()) new Notification({ title: n.title, body: n.body }).show();
      },
    }),
    (frameUrl) => isInsideApp(frameUrl, consoleUrl()),
  );
  stopServerBeforeQuit(app, () => relay.close(), log);

  /** Opens the console, or points the open window at it again (a restarted relay may have a new port). */
  const showConsole = () => {
    const url = consoleUrl();
    if (!url) return;
    if (!win) {
      win = createMainWindow({ url, preload: preloadPath });
      win.on("closed", () => (win = undefined));
      return;
    }
    void win.loadURL(url);
    if (win.isMinimized()) win.restore();
    win.focus();
  };

  const startFromMenu = async () => {
    try {
      await relay.start();
      showConsole();
    } catch (err) {
      dialog.showErrorBox("The relay could not start", err instanceof Error ? err.message : String(err));
    }
  };

  app.on("second-instance", () => showConsole());
  // The relay lives as long as its window: closing it stops the server, on every platform.
  app.on("window-all-closed", () => app.quit());
  app.on("activate", () => {
    if (!win) showConsole();
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => app.quit());

  void app.whenReady().then(async () => {
    hardenSession(session.defaultSession, consoleUrl);
    installRelayMenus(relay, { start: () => void startFromMenu(), stop: () => void relay.stop(), openConsole: showConsole, quit: () => app.quit() }, log);
    try {
      await relay.start();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log(`relay failed to start: ${message}`);
      dialog.showErrorBox("The relay could not start", message);
      app.exit(1);
      return;
    }
    showConsole();
  });
}
