import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";

const mocks = vi.hoisted(() => ({
  loadConfig: vi.fn(),
  startServer: vi.fn(),
}));
vi.mock("electron", () => ({})); // the host never touches Electron; make sure nothing does
vi.mock("../src-server/config/load", () => ({ loadConfig: mocks.loadConfig }));
vi.mock("../src-server/index", () => ({ startServer: mocks.startServer }));

const { createServerHost, reachableUrl, startRelay, stopServerBeforeQuit } = await import("./server-host");

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const instance = () => ({ stop: vi.fn(async () => {}) });

describe("createServerHost", () => {
  it("starts once, however often asked", async () => {
    const start = vi.fn(async () => instance());
    const host = createServerHost(start);
    const [a, b] = await Promise.all([host.start(), host.start()]);
    expect(a).toBe(b);
    expect(start).toHaveBeenCalledTimes(1);
    expect(host.current()).toBe(a);
  });

  it("a stop during start waits for the start, then stops", async () => {
    const pending = deferred<ReturnType<typeof instance>>();
    const host = createServerHost(() => pending.promise);
    void host.start();
    const stopped = host.stop();
    const server = instance();
    pending.resolve(server);
    await stopped;
    expect(server.stop).toHaveBeenCalledTimes(1);
    expect(host.current()).toBeUndefined();
  });

  it("stops once and never restarts", async () => {
    const server = instance();
    const host = createServerHost(async () => server);
    await host.start();
    await Promise.all([host.stop(), host.stop()]);
    await host.stop();
    expect(server.stop).toHaveBeenCalledTimes(1);
    await expect(host.start()).rejects.toThrow(/stopped/);
  });

  it("stopping a host that never started, or failed to, is a no-op", async () => {
    await expect(createServerHost(async () => instance()).stop()).resolves.toBeUndefined();
    const failing = createServerHost(async () => Promise.reject(new Error("port in use")));
    await expect(failing.start()).rejects.toThrow("port in use");
    await expect(failing.stop()).resolves.toBeUndefined();
  });
});

describe("reachableUrl", () => {
  it("turns wildcard binds into loopback and drops any path", () => {
    expect(reachableUrl("http://0.0.0.0:8080")).toBe("http://127.0.0.1:8080");
    expect(reachableUrl("http://[::]:8080")).toBe("http://[::1]:8080");
    expect(reachableUrl("http://127.0.0.1:41234/")).toBe("http://127.0.0.1:41234");
    expect(reachableUrl("http://192.168.1.5:80")).toBe("http://192.168.1.5");
  });
});

describe("startRelay", () => {
  afterEach(() => vi.clearAllMocks());

  it("loads config with the app-data default and serves the renderer as the console", async () => {
    const config = { host: "0.0.0.0", port: 0, dataDir: "/data/relay" };
    const stop = vi.fn(async () => {});
    mocks.loadConfig.mockReturnValue(config);
    mocks.startServer.mockResolvedValue({ url: "http://0.0.0.0:43210", host: "0.0.0.0", port: 43210, stop });
    const log = vi.fn();
    const env = { RELAY_PORT: "0" };

    const relay = await startRelay({ env, userDataDir: "/home/op/.config/relay", consoleDir: "/app/out/renderer", log });

    expect(mocks.loadConfig).toHaveBeenCalledWith(env, { defaultDataDir: "/home/op/.config/relay" });
    expect(mocks.startServer).toHaveBeenCalledWith(config, { consoleDir: "/app/out/renderer", log });
    expect(relay).toMatchObject({
      url: "http://0.0.0.0:43210",
      apiBase: "http://127.0.0.1:43210",
      consoleUrl: "http://127.0.0.1:43210/console/",
      dataDir: "/data/relay",
    });
    await relay.stop();
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it("lets a config error through untouched, so main can show it", async () => {
    mocks.loadConfig.mockImplementation(() => {
      throw new Error("config RELAY_PORT: must be an integer from 0 to 65535");
    });
    await expect(startRelay({ env: {}, userDataDir: "/x", consoleDir: "/y", log: () => {} })).rejects.toThrow(/RELAY_PORT/);
    expect(mocks.startServer).not.toHaveBeenCalled();
  });
});

class FakeApp extends EventEmitter {
  quits = 0;
  /** Like Electron: quit() emits before-quit, and quits unless a listener prevents it. */
  quit() {
    let prevented = false;
    this.emit("before-quit", { preventDefault: () => (prevented = true) });
    if (!prevented) this.quits++;
  }
}

describe("stopServerBeforeQuit", () => {
  afterEach(() => vi.useRealTimers());

  it("holds the quit until the server has stopped, then quits once", async () => {
    const app = new FakeApp();
    const pending = deferred<void>();
    const stop = vi.fn(() => pending.promise);
    stopServerBeforeQuit(app, stop, () => {});

    app.quit();
    app.quit(); // impatient user
    expect(stop).toHaveBeenCalledTimes(1);
    expect(app.quits).toBe(0);

    pending.resolve();
    await vi.waitFor(() => expect(app.quits).toBe(1));
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it("still quits when stopping fails or hangs", async () => {
    const failing = new FakeApp();
    const log = vi.fn();
    stopServerBeforeQuit(failing, async () => Promise.reject(new Error("flush failed")), log);
    failing.quit();
    await vi.waitFor(() => expect(failing.quits).toBe(1));
    expect(log).toHaveBeenCalledWith(expect.stringContaining("flush failed"));

    vi.useFakeTimers();
    const hanging = new FakeApp();
    stopServerBeforeQuit(hanging, () => new Promise<void>(() => {}), log, 1_000);
    hanging.quit();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(hanging.quits).toBe(1);
    expect(log).toHaveBeenCalledWith(expect.stringContaining("did not stop within 1000 ms"));
  });
});
