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
    windows: [] as { options: any; url?: string }[],
    ipc: new Map<string, (event: unknown) => unknown>(),
    errorBoxes: [] as string[][],
    startRelay: vi.fn(),
  };
});

vi.mock("electron", () => ({
  app: new Proxy({}, { get: (_t, key) => Reflect.get(h.app, key, h.app) }),
  BrowserWindow: class extends EventEmitter {
    record: { options: any; url?: string };
    constructor(options: unknown) {
      super();
      this.record = { options };
      h.windows.push(this.record);
    }
    loadURL(url: string) {
      this.record.url = url;
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
}));

// Keep the real server out of this test (server-host's own tests cover startRelay).
vi.mock("../src-server/index", () => ({ startServer: vi.fn() }));
vi.mock("../src-server/config/load", () => ({ loadConfig: vi.fn() }));
vi.mock("./server-host", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./server-host")>()),
  startRelay: h.startRelay,
}));

const relay = () => ({
  url: "http://127.0.0.1:41000",
  apiBase: "http://127.0.0.1:41000",
  consoleUrl: "http://127.0.0.1:41000/console/",
  dataDir: "/fake/userData",
  stop: vi.fn(async () => {}),
});

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

    expect(h.startRelay).toHaveBeenCalledWith(
      expect.objectContaining({ userDataDir: "/fake/userData", consoleDir: expect.stringMatching(/renderer$/) }),
    );
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
