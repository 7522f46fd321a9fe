import { BrowserWindow } from "electron";

export interface MainWindowOptions {
  /** The console, served by the in-process relay. */
  url: string;
  /** Absolute path of the built preload (CommonJS; the renderer is sandboxed). */
  preload: string;
}

export function createMainWindow(opts: MainWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 820,
    minWidth: 720,
    minHeight: 520,
    show: false,
    title: "Withdrawal Relay",
    backgroundColor: "#f6f7f9",
    autoHideMenuBar: true,
    webPreferences: {
      preload: opts.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  win.once("ready-to-show", () => win.show());
  void win.loadURL(opts.url);
  return win;
}
