import { describe, expect, it } from "vitest";
import { ErrorName } from "../../src-shared/errors";
import { parseIndexParam, parseNetworkParam } from "./params";

describe("path parameters", () => {
  it("reads an index as its decimal digits and refuses anything else by name", () => {
    for (const [text, n] of [
      ["0", 0],
      ["7", 7],
      ["0042", 42],
      ["4294967295", 4294967295],
    ] as const)
      expect(parseIndexParam(text, 2 ** 32)).toEqual({ ok: true, value: n });
    for (const bad of ["", "-1", "+1", "1.5", "1e3", " 1", "1 ", "0x10", "١", "12345678901234567"]) {
      const r = parseIndexParam(bad, 2 ** 32);
      expect(r.ok ? r : r.error.error, bad).toBe(ErrorName.InvalidRequest);
    }
    for (const big of ["4294967296", "9007199254740993", "9999999999999999"]) {
      const r = parseIndexParam(big, 2 ** 32);
      expect(r.ok ? r : r.error.error, big).toBe(ErrorName.IndexOutOfRange);
    }
    expect(parseIndexParam(7, 2 ** 32).ok).toBe(false);
  });

  it("answers the network as the literal name, and refuses an unknown or disabled one", () => {
    const path = "/get_merkle/M/32/mainnet".split("/")[4]!;
    const r = parseNetworkParam(path, () => true);
    expect(r).toEqual({ ok: true, value: "mainnet" });
    expect(parseNetworkParam("devnet", () => true)).toEqual({ ok: true, value: "devnet" });
    for (const [v, enabled] of [
      ["Mainnet", true],
      ["testnet", true],
      ["devnet", false],
    ] as const) {
      const bad = parseNetworkParam(v, () => enabled);
      expect(bad.ok ? bad : bad.error.error).toBe(ErrorName.InvalidNetwork);
    }
  });
});
