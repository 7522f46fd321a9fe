import { beforeEach, describe, expect, it, vi } from "vitest";
import { BRIDGE_CHANNELS, type AppInfo } from "../src-preload/api";

type Handler = (event: { senderFrame: { url: string } | null }, ...args: unknown[]) => unknown;
const handlers = vi.hoisted(() => new Map<string, Handler>());

vi.mock("electron", () => ({
  ipcMain: {
    handle: (channel: string, h: Handler) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, h);
    },
    removeHandler: (channel: string) => handlers.delete(channel),
  },
}));

const { createBridgeHandlers, registerBridgeHandlers } = await import("./ipc");

const APP = "http://127.0.0.1:8080/console/";
const info: AppInfo = {
  name: "private-withdrawal-relay",
  version: "0.1.0",
  electron: "41.7.1",
  chrome: "146.0.0.0",
  node: "24.14.0",
  platform: "linux",
  dataDir: "/home/op/.config/relay",
};
const fromConsole = { senderFrame: { url: `${APP}#/pools` } };

describe("bridge handlers", () => {
  beforeEach(() => handlers.clear());

  it("registers exactly one handler per contract method", () => {
    registerBridgeHandlers(
      createBridgeHandlers({ apiBase: () => "http://127.0.0.1:8080", appInfo: () => info, operatorToken: () => null, showNotification: () => {} }),
      () => true,
    );
    expect([...handlers.keys()].sort()).toEqual(Object.values(BRIDGE_CHANNELS).sort());
  });

  it("answers the console", async () => {
    registerBridgeHandlers(
      createBridgeHandlers({ apiBase: () => "http://127.0.0.1:8080", appInfo: () => info, operatorToken: () => null, showNotification: () => {} }),
      (url) => url.startsWith(APP),
    );
    expect(await handlers.get(BRIDGE_CHANNELS.getApiBase)!(fromConsole)).toBe("http://127.0.0.1:8080");
    expect(await handlers.get(BRIDGE_CHANNELS.getAppInfo)!(fromConsole)).toEqual(info);
    expect(await handlers.get(BRIDGE_CHANNELS.getOperatorToken)!(fromConsole)).toBeNull();
  });

  it("hands the operator token to the console only", async () => {
    registerBridgeHandlers(
      createBridgeHandlers({
        apiBase: () => "http://127.0.0.1:8080",
        appInfo: () => info,
        operatorToken: () => "desktop-held-token",
        showNotification: () => {},
      }),
      (url) => url.startsWith(APP),
    );
    expect(await handlers.get(BRIDGE_CHANNELS.getOperatorToken)!(fromConsole)).toBe("desktop-held-token");
    expect(() => handlers.get(BRIDGE_CHANNELS.getOperatorToken)!({ senderFrame: { url: "https://evil.example/" } })).toThrow(/refused/);
    expect(() => handlers.get(BRIDGE_CHANNELS.getOperatorToken)!({ senderFrame: { url: "http://127.0.0.1:8080/other/" } })).toThrow(/refused/);
  });

  it("ignores renderer arguments", () => {
    const appInfo = vi.fn(() => info);
    registerBridgeHandlers(createBridgeHandlers({ apiBase: () => "x", appInfo, operatorToken: () => null, showNotification: () => {} }), () => true);
    handlers.get(BRIDGE_CHANNELS.getAppInfo)!(fromConsole, "injected", { evil: true });
    expect(appInfo).toHaveBeenCalledWith();
  });

  it("shows a notification the console asks for, as plain bounded text, and refuses anything else", () => {
    const shown: unknown[] = [];
    registerBridgeHandlers(
      createBridgeHandlers({ apiBase: () => "x", appInfo: () => info, operatorToken: () => null, showNotification: (n) => shown.push(n) }),
      (url) => url.startsWith(APP),
    );
    const notify = handlers.get(BRIDGE_CHANNELS.notify)!;
    notify(fromConsole, { title: "Fee payer on mainnet is empty", body: "x".repeat(1000), extra: "ignored" });
    expect(shown).toEqual([{ title: "Fee payer on mainnet is empty", body: "x".repeat(400) }]);
    expect(() => notify(fromConsole, { title: 5, body: "b" })).toThrow(/strings/);
    expect(() => notify(fromConsole, "text")).toThrow(/expects/);
    expect(() => notify({ senderFrame: { url: "https://evil.example/" } }, { title: "t", body: "b" })).toThrow(/refused/);
    expect(shown).toHaveLength(1);
  });

  it("refuses frames outside the console", () => {
    registerBridgeHandlers(
      createBridgeHandlers({ apiBase: () => "http://127.0.0.1:8080", appInfo: () => info, operatorToken: () => null, showNotification: () => {} }),
      (url) => url.startsWith(APP),
    );
    expect(() => handlers.get(BRIDGE_CHANNELS.getApiBase)!({ senderFrame: { url: "https://evil.example/" } })).toThrow(/refused/);
    expect(() => handlers.get(BRIDGE_CHANNELS.getAppInfo)!({ senderFrame: null })).toThrow(/unknown frame/);
  });

  it("says so while the relay is not running", () => {
    registerBridgeHandlers(
      createBridgeHandlers({ apiBase: () => undefined, appInfo: () => info, operatorToken: () => null, showNotification: () => {} }),
      () => true,
    );
    expect(() => handlers.get(BRIDGE_CHANNELS.getApiBase)!(fromConsole)).toThrow(/not running/);
  });

  it("unregisters everything it registered", () => {
    const off = registerBridgeHandlers(
      createBridgeHandlers({ apiBase: () => "x", appInfo: () => info, operatorToken: () => null, showNotification: () => {} }),
      () => true,
    );
    off();
    expect(handlers.size).toBe(0);
  });
});
