import { describe, expect, it, vi } from "vitest";
import { appMenuTemplate, relayMenuItems } from "./menu";
import { createRelayController, type RelayPhase } from "./relay-control";

vi.mock("electron", () => ({})); // pure: nothing here may need Electron

const instance = (n: number) => ({ n, apiBase: `http://127.0.0.1:${41000 + n}`, stop: vi.fn(async () => {}) });

describe("createRelayController", () => {
  it("starts, stops and starts again, a new server each time, reporting each phase", async () => {
    let n = 0;
    const ctrl = createRelayController(async () => instance(++n));
    const phases: RelayPhase[] = [];
    ctrl.onChange((p) => phases.push(p));
    const first = await ctrl.start();
    expect(await ctrl.start()).toBe(first); // already running
    expect(ctrl.current()).toBe(first);
    await ctrl.stop();
    expect(first.stop).toHaveBeenCalledTimes(1);
    expect(ctrl.current()).toBeUndefined();
    const second = await ctrl.start();
    expect(second.n).toBe(2);
    expect(phases).toEqual(["starting", "running", "stopping", "stopped", "starting", "running"]);
  });

  it("a failed start leaves it stopped with the error, and a later start can succeed", async () => {
    let fail = true;
    const ctrl = createRelayController(async () => {
      if (fail) throw new Error("port 8080 in use");
      return instance(1);
    });
    await expect(ctrl.start()).rejects.toThrow("port 8080 in use");
    expect(ctrl.phase()).toBe("stopped");
    expect(ctrl.lastError()).toBe("port 8080 in use");
    fail = false;
    await ctrl.start();
    expect(ctrl.phase()).toBe("running");
    expect(ctrl.lastError()).toBeNull();
  });

  it("a start right after a stop waits for the stop (the data dir lock)", async () => {
    let release!: () => void;
    const first = { ...instance(1), stop: vi.fn(() => new Promise<void>((r) => (release = r))) };
    const start = vi.fn<() => Promise<ReturnType<typeof instance>>>().mockResolvedValueOnce(first).mockResolvedValueOnce(instance(2));
    const ctrl = createRelayController(start);
    await ctrl.start();
    void ctrl.stop();
    const again = ctrl.start();
    await Promise.resolve();
    expect(start).toHaveBeenCalledTimes(1);
    release();
    expect((await again).n).toBe(2);
  });

  it("after close nothing starts again", async () => {
    const ctrl = createRelayController(async () => instance(1));
    const running = await ctrl.start();
    await ctrl.close();
    expect(running.stop).toHaveBeenCalledTimes(1);
    await expect(ctrl.start()).rejects.toThrow(/quitting/);
  });
});

describe("relay menu", () => {
  const actions = { start: vi.fn(), stop: vi.fn(), openConsole: vi.fn(), quit: vi.fn() };
  const byId = (phase: RelayPhase) =>
    Object.fromEntries(
      relayMenuItems(phase, "http://127.0.0.1:8080", actions)
        .filter((i) => i.id)
        .map((i) => [i.id, i]),
    );

  it("offers start only when stopped, stop and the console only when running", () => {
    expect(byId("stopped")).toMatchObject({
      start: { enabled: true },
      stop: { enabled: false },
      console: { enabled: false },
      status: { label: "Relay stopped" },
    });
    expect(byId("running")).toMatchObject({
      start: { enabled: false },
      stop: { enabled: true },
      console: { enabled: true },
      status: { label: "Relay running on http://127.0.0.1:8080" },
    });
    expect(byId("starting")).toMatchObject({ start: { enabled: false }, stop: { enabled: false } });
  });

  it("wires each item to its action, and the app menu carries the same items", () => {
    const items = byId("running");
    (items.stop!.click as () => void)();
    (items.console!.click as () => void)();
    (items.quit!.click as () => void)();
    expect(actions.stop).toHaveBeenCalledTimes(1);
    expect(actions.openConsole).toHaveBeenCalledTimes(1);
    expect(actions.quit).toHaveBeenCalledTimes(1);
    const [relayMenu] = appMenuTemplate("running", "http://127.0.0.1:8080", actions);
    expect(relayMenu!.label).toBe("Relay");
    expect((relayMenu!.submenu as unknown[]).length).toBe(relayMenuItems("running", undefined, actions).length);
  });
});
