import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RelayLogger, RotatingFile, scrub } from "./relay-logger";

describe("scrub", () => {
  it("cuts every URL to its origin and replaces configured secrets", () => {
    expect(scrub("rpc https://rpc.example.com/v2/KEY123 failed; ws wss://x.example.com/?api-key=K2 too", [])).toBe(
      "rpc https://rpc.example.com/… failed; ws wss://x.example.com/… too",
    );
    expect(scrub("token is abcdefgh12345678 here", ["abcdefgh12345678"])).toBe("token is [redacted] here");
  });
});

describe("RotatingFile", () => {
  it("moves the file to .1 (and .1 to .2) when it would pass the size, keeping at most maxFiles old ones", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rotate-"));
    const f = new RotatingFile(path.join(dir, "relay.log"), 100, 2);
    for (let i = 0; i < 10; i++) {
      f.write(`${String(i).repeat(40)}\n`);
      // Rotation renames the file the asynchronous writer has open: let each line reach it.
      await new Promise((r) => setTimeout(r, 20));
    }
    await f.close();
    expect(readdirSync(dir).sort()).toEqual(["relay.log", "relay.log.1", "relay.log.2"]);
    for (const name of readdirSync(dir)) expect(readFileSync(path.join(dir, name)).length).toBeLessThanOrEqual(100);
    expect(readFileSync(path.join(dir, "relay.log"), "utf8")).toBe(`${"8".repeat(40)}\n${"9".repeat(40)}\n`);
  });
});

describe("RelayLogger", () => {
  it("tags `relay <id>` lines with the relay id and keeps them for the console", () => {
    const shown: string[] = [];
    const log = new RelayLogger({ dir: null, maxFileBytes: 1e6, maxFiles: 1, console: (m) => shown.push(m), secrets: [] });
    const id = "0b7e3f2a-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    log.line(`relay ${id}: submission failed: https://rpc.example.com/secret`);
    log.line("unrelated");
    expect(log.linesOf(id)).toEqual([expect.objectContaining({ relayId: id, msg: `relay ${id}: submission failed: https://rpc.example.com/…` })]);
    expect(shown).toEqual([`relay ${id}: submission failed: https://rpc.example.com/…`, "unrelated"]);
  });

  it("sends the generated operator token's notice to the terminal only, never to the file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "notice-"));
    const shown: string[] = [];
    const log = new RelayLogger({ dir, maxFileBytes: 1e6, maxFiles: 1, console: (m) => shown.push(m), secrets: [] });
    const rule = "=".repeat(78);
    for (const l of [rule, "OPERATOR TOKEN: shown this one time only. Copy it now.", "", "    T0KEN-abc", "", rule, "after"]) log.line(l);
    await log.close();
    expect(shown).toContain("    T0KEN-abc");
    const file = readFileSync(path.join(dir, "relay.log"), "utf8");
    expect(file).not.toContain("T0KEN");
    expect(file).toContain('"msg":"after"');
  });
});
