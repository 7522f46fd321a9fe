import { EventEmitter } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BRIDGE_CHANNELS } from "../src-preload/api";

// index.ts wired against a stand-in Electron and a stand-in relay: lifecycle order,
// window options, the bridge, start-up failure and the graceful quit.

const h = await vi.hoisted(async () => {
  const { EventEmitter: Emitter } = await import("node:events");
  class FakeApp extends Emitter {
    gotLock = true;
    quits = 0;
    exitCode: number | undefined;
    requestSingleInstanceLock = () => this.gotLock;
    getPath = (name: string) => `/fake/${name}`;
    getName = () => "private-withdrawal-relay";
    getVersion = () => "0.1.0";
    whenReady = () => Promise.resolve();
    quit = () => {
      let prevented = false;
      this.emit("before-quit", { preventDefault: () => (prevented = true) });
      if (!prevented) this.quits++;
    };
    exit = (code: number) => {
      this.exitCode = code;
    };
  }
  return {
    FakeApp,
    app: new FakeApp(),
    windows: [] as { options: any; url?: string; loads?: number }[],
    ipc: new Map<string, (event: unknown) => unknown>(),
    errorBoxes: [] as string[][],
    startRelay: vi.fn(),
    /** The latest application menu and tray menu templates, as main built them. */
    appMenu: [] as any[],
    trayMenu: [] as any[],
    trays: 0,
  };
});

vi.mock("electron", () => ({
  app: new Proxy({}, { get: (_t, key) => Reflect.get(h.app, key, h.app) }),
  BrowserWindow: class extends EventEmitter {
    record: { options: any; url?: string; loads?: number };
    constructor(options: unknown) {
      super();
      this.record = { options };
      h.windows.push(this.record);
    }
    loadURL(url: string) {
      this.record.url = url;
      this.record.loads = (this.record.loads ?? 0) + 1;
      return Promise.resolve();
    }
    isMinimized = () => false;
    restore() {}
    focus() {}
    show() {}
  },
  dialog: { showErrorBox: (...args: string[]) => h.errorBoxes.push(args) },
  session: {
    defaultSession: {
      setPermissionRequestHandler() {},
      setPermissionCheckHandler() {},
      webRequest: { onHeadersReceived() {} },
    },
  },
  ipcMain: {
    handle: (channel: string, fn: (event: unknown) => unknown) => h.ipc.set(channel, fn),
    removeHandler: (channel: string) => h.ipc.delete(channel),
  },
  Menu: {
    buildFromTemplate: (template: any[]) => ({ template }),
    setApplicationMenu: (menu: { template: any[] }) => (h.appMenu = menu.template),
  },
  Tray: class {
    constructor() {
      h.trays++;
    }
    setToolTip() {}
    setContextMenu(menu: { template: any[] }) {
      h.trayMenu = menu.template;
    }
    destroy() {}
  },
  nativeImage: { createFromDataURL: (url: string) => ({ url }) },
  safeStorage: {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => "gnome_libsecret",
    encryptString: (s: string) => Buffer.from(s),
    decryptString: (b: Buffer) => b.toString(),
  },
}));

// Keep the real server out of this test (server-host's own tests cover startRelay).
vi.mock("../src-server/index", () => ({ startServer: vi.fn() }));
vi.mock("../src-server/config/load", () => ({ loadConfig: vi.fn() }));
vi.mock("./server-host", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./server-host")>()),
  startRelay: h.startRelay,
}));

const relay = (port = 41000) => ({
  url: `http://127.0.0.1:${port}`,
  apiBase: `http://127.0.0.1:${port}`,
  consoleUrl: `http://127.0.0.1:${port}/console/`,
  dataDir: "/fake/userData",
  operatorToken: "desktop-held-operator-token" as string | null,
  stop: vi.fn(async () => {}),
});

/** Clicks the Relay menu item with this id, as the operator would. */
const click = (id: string) => {
  const item = (h.appMenu[0].submenu as any[]).find((i) => i.id === id);
  if (!item?.enabled) throw new Error(`menu item ${id} is not enabled`);
  item.click();
};

let signalListeners: Map<string, unknown[]>;

async function boot() {
  vi.resetModules();
  await import("./index");
  await vi.waitFor(() => expect(h.windows.length + h.errorBoxes.length + (h.app.gotLock ? 0 : 1)).toBeGreaterThan(0));
}

beforeEach(() => {
  h.app = new h.FakeApp();
  h.windows.length = 0;
  h.ipc.clear();
  h.errorBoxes.length = 0;
  h.startRelay.mockReset();
  h.appMenu = [];
  h.trayMenu = [];
  h.trays = 0;
  signalListeners = new Map(["SIGINT", "SIGTERM"].map((s) => [s, process.listeners(s as NodeJS.Signals)]));
});

afterEach(() => {
  // index.ts turns SIGINT/SIGTERM into app.quit(); do not leave that on the test worker.
  for (const [signal, before] of signalListeners) {
    for (const l of process.listeners(signal as NodeJS.Signals)) {
      if (!before.includes(l)) process.off(signal, l as () => void);
    }
  }
});

describe("desktop main", () => {
  it("starts the relay with the app-data folder, then opens a sandboxed window on its console", async () => {
    const running = relay();
    h.startRelay.mockResolvedValue(running);
    await boot();

    expect(h.startRelay).toHaveBeenCalledWith(expect.objectContaining({ userDataDir: "/fake/userData", consoleDir: expect.stringMatching(/renderer$/) }));
    const [win] = h.windows;
    expect(win!.url).toBe("http://127.0.0.1:41000/console/");
    expect(win!.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(win!.options.webPreferences.preload).toMatch(/preload[\\/]index\.cjs$/);

    const fromConsole = { senderFrame: { url: "http://127.0.0.1:41000/console/#/health" } };
    expect(await h.ipc.get(BRIDGE_CHANNELS.getApiBase)!(fromConsole)).toBe("http://127.0.0.1:41000");
    expect(await h.ipc.get(BRIDGE_CHANNELS.getAppInfo)!(fromConsole)).toMatchObject({ dataDir: "/fake/userData" });
    expect(() => h.ipc.get(BRIDGE_CHANNELS.getApiBase)!({ senderFrame: { url: "https://evil.example/" } })).toThrow();

    h.app.quit();
    expect(h.app.quits).toBe(0); // held until the server stops
    await vi.waitFor(() => expect(h.app.quits).toBe(1));
    expect(running.stop).toHaveBeenCalledTimes(1);
  });

  it("hands the console the operator token and keeps keys with safeStorage", async () => {
    h.startRelay.mockResolvedValue(relay());
    await boot();
    const options = h.startRelay.mock.calls[0]![0];
    const store = options.keyStorage("/tmp/relay-data");
    expect(store.encrypted).toBe(true);
    expect(store.secrets.protection).toMatch(/safeStorage/);
    const fromConsole = { senderFrame: { url: "http://127.0.0.1:41000/console/#/health" } };
    expect(await h.ipc.get(BRIDGE_CHANNELS.getOperatorToken)!(fromConsole)).toBe("desktop-held-operator-token");
    expect(() => h.ipc.get(BRIDGE_CHANNELS.getOperatorToken)!({ senderFrame: { url: "https://evil.example/" } })).toThrow();
  });

  it("stops and starts the relay from the Relay menu and the tray, pointing the window at the new server", async () => {
    const first = relay(41000);
    const second = relay(42000);
    h.startRelay.mockResolvedValueOnce(first).mockResolvedValueOnce(second);
    await boot();
    expect(h.trays).toBe(1);
    expect(h.trayMenu.find((i) => i.id === "stop").enabled).toBe(true);
    expect(h.appMenu[0].submenu[0].label).toBe("Relay running on http://127.0.0.1:41000");

    click("stop");
    await vi.waitFor(() => expect(first.stop).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(h.appMenu[0].submenu[0].label).toBe("Relay stopped"));
    const fromConsole = { senderFrame: { url: "http://127.0.0.1:41000/console/" } };
    // Stopped: no console exists, so no frame counts as the console and the bridge refuses.
    expect(() => h.ipc.get(BRIDGE_CHANNELS.getApiBase)!(fromConsole)).toThrow();

    click("start");
    await vi.waitFor(() => expect(h.windows[0]!.url).toBe("http://127.0.0.1:42000/console/"));
    expect(h.windows).toHaveLength(1); // the same window, reloaded
    expect(h.trayMenu.find((i) => i.id === "start").enabled).toBe(false);

    h.app.quit();
    await vi.waitFor(() => expect(h.app.quits).toBe(1));
    expect(second.stop).toHaveBeenCalledTimes(1);
  });

  it("shows a start-up failure (e.g. a config error) and exits 1 without a window", async () => {
    h.startRelay.mockRejectedValue(new Error("config RELAY_PORT: must be an integer from 0 to 65535"));
    await boot();
    expect(h.errorBoxes).toEqual([["The relay could not start", "config RELAY_PORT: must be an integer from 0 to 65535"]]);
    expect(h.app.exitCode).toBe(1);
    expect(h.windows).toEqual([]);
  });

  it("a second instance quits at once and starts nothing", async () => {
    h.app.gotLock = false;
    await boot();
    expect(h.app.quits).toBe(1);
    expect(h.startRelay).not.toHaveBeenCalled();
  });
});
