import { describe, expect, it } from "vitest";
import { canonicalOverridesText, checkListUrl, effectiveCount, isListed, parseSanctionsText, type OverrideAction } from "./sanctions";

const A = "FuCC7GoYwt5TsNTjWL23Xx9UKCvC18chjMEFPL3vJDCC";
const B = "42RLPACwZPx3vYYmxSueqsogfynBDqXK298EDsNoyoHi";
const C = "So11111111111111111111111111111111111111112";

describe("parseSanctionsText (OFAC per-asset formats)", () => {
  it("reads one address per line with # comments, blank lines, CRLF and a BOM; sorted and de-duplicated", () => {
    const r = parseSanctionsText(`\uFEFF# OFAC SDN SOL\r\n${B}\r\n\n  ${A}  # Garantex\n${B}\n`);
    expect(r).toEqual({ ok: true, value: { addresses: [A, B].sort(), format: "lines" } });
  });

  it("reads a JSON array of strings", () => {
    expect(parseSanctionsText(`[ "${A}", "${B}", "${A}" ]`)).toEqual({ ok: true, value: { addresses: [A, B].sort(), format: "json" } });
  });

  it("accepts an explicit empty list ([] or only comments) but refuses a text with nothing in it", () => {
    expect(parseSanctionsText("[]")).toMatchObject({ ok: true, value: { addresses: [] } });
    expect(parseSanctionsText("# nobody\n")).toMatchObject({ ok: true, value: { addresses: [] } });
    expect(parseSanctionsText("")).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) });
    expect(parseSanctionsText(" \n\t\n")).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) });
  });

  it.each([
    [`${A}\n0x8589427373D6D84E98730D7795D8f6f8731FDA16\n`, /line 2: not a Solana address/],
    [`${A}\n${A.slice(0, 20)}\n`, /line 2/],
    [`["${A}", 5]`, /entry 1: not a string/],
    [`["${A}", "bc1qxyz"]`, /entry 1: not a Solana address/],
    [`{"addresses": []}`, /not a Solana address|array/],
    [`["${A}"`, /not valid JSON/],
  ])("refuses the whole list on a bad entry: %j", (text, problem) => {
    const r = parseSanctionsText(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(problem);
  });

  it("reads the bundled SOL list", async () => {
    const { readFileSync } = await import("node:fs");
    const r = parseSanctionsText(readFileSync(new URL("../../../resources/sanctions/sanctioned_addresses_SOL.txt", import.meta.url), "utf8"));
    expect(r.ok && r.value.addresses).toContain(A);
  });
});

describe("overrides on top of the loaded list", () => {
  const base = new Set([A, B]);
  const overrides = new Map<string, OverrideAction>([
    [B, "remove"],
    [C, "add"],
  ]);

  it("lets an override win whichever way it points", () => {
    expect(isListed(base, overrides, A)).toBe(true);
    expect(isListed(base, overrides, B)).toBe(false);
    expect(isListed(base, overrides, C)).toBe(true);
    expect(isListed(base, new Map(), B)).toBe(true);
  });

  it("counts the effective list", () => {
    expect(effectiveCount(base, overrides)).toBe(2);
    expect(effectiveCount(base, new Map([[A, "add"]]))).toBe(2);
    expect(effectiveCount(base, new Map([[C, "remove"]]))).toBe(2);
  });

  it("gives the overrides one canonical text whatever their order", () => {
    const t1 = canonicalOverridesText([
      { address: C, action: "add" },
      { address: B, action: "remove" },
    ]);
    const t2 = canonicalOverridesText([
      { address: B, action: "remove" },
      { address: C, action: "add" },
    ]);
    expect(t1).toBe(t2);
    expect(t1).toBe(`add ${C}\nremove ${B}`);
  });
});

describe("checkListUrl", () => {
  it.each([
    "https://raw.githubusercontent.com/0xB10C/ofac/main/lists/sanctioned_addresses_SOL.txt",
    "http://127.0.0.1:8123/list.txt",
    "http://localhost/x",
    "http://[::1]:9/x",
    "http://127.8.0.1/x",
  ])("accepts %s", (u) => expect(checkListUrl(u).ok).toBe(true));
  it.each([
    ["http://example.com/list.txt", /https/],
    ["http://10.0.0.1/list.txt", /loopback/],
    ["ftp://127.0.0.1/list.txt", /https/],
    ["file:///etc/passwd", /https/],
    ["not a url", /not a URL/],
  ])("refuses %s", (u, problem) => {
    const r = checkListUrl(u);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(problem);
  });
});
