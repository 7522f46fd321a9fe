import { describe, expect, it, vi } from "vitest";

const created = vi.hoisted(() => [] as { options: any; loadURL: ReturnType<typeof vi.fn> }[]);

vi.mock("electron", () => ({
  BrowserWindow: class {
    loadURL = vi.fn(async () => {});
    once = vi.fn();
    show = vi.fn();
    constructor(options: unknown) {
      created.push({ options, loadURL: this.loadURL });
    }
  },
}));

const { createMainWindow } = await import("./window");

describe("createMainWindow", () => {
  it("isolates and sandboxes the console and loads it from the relay", () => {
    createMainWindow({ url: "http://127.0.0.1:8080/console/", preload: "/app/out/preload/index.cjs" });
    const win = created[0]!;
    expect(win.options.webPreferences).toMatchObject({
      preload: "/app/out/preload/index.cjs",
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    });
    expect(win.loadURL).toHaveBeenCalledWith("http://127.0.0.1:8080/console/");
  });
});
