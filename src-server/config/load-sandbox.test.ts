import { describe, expect, it } from "vitest";
import { withConfigFile as withFile } from "../../tests/support/config-file";
import { loadConfig } from "./load";
import { sandboxMinDeposit } from "./schema";

const WSOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

describe("loadConfig: a sandbox network's minimum deposits (issue 25)", () => {
  it("takes any positive amount in every sandbox pool by default", () => {
    const c = loadConfig({});
    expect(c.networks.mainnet.sandbox).toBeUndefined();
    expect(sandboxMinDeposit(c.networks.mainnet, WSOL)).toBe(1n);
  });

  it("reads per-mint minimums and a default for other mints, as numbers or decimal strings", () => {
    const c = loadConfig(withFile({ networks: { devnet: { sandbox: { minDeposit: { [WSOL]: "10000000", [USDC]: 1_000_000 }, defaultMinDeposit: 5 } } } }));
    expect(c.networks.devnet.sandbox).toEqual({ minDeposit: { [WSOL]: 10_000_000n, [USDC]: 1_000_000n }, defaultMinDeposit: 5n });
    expect(sandboxMinDeposit(c.networks.devnet, WSOL)).toBe(10_000_000n);
    expect(sandboxMinDeposit(c.networks.devnet, "11111111111111111111111111111112")).toBe(5n);
    expect(sandboxMinDeposit(c.networks.mainnet, WSOL)).toBe(1n);
  });

  it("refuses a minimum of 0, one that is not a whole number, a mint that is not a key and an unknown setting, naming the key", () => {
    expect(() => loadConfig(withFile({ networks: { mainnet: { sandbox: { minDeposit: { [WSOL]: 0 } } } } }))).toThrow(
      /networks\.mainnet\.sandbox\.minDeposit\.So1+2: must be at least 1/,
    );
    expect(() => loadConfig(withFile({ networks: { mainnet: { sandbox: { defaultMinDeposit: "0.5" } } } }))).toThrow(
      /networks\.mainnet\.sandbox\.defaultMinDeposit/,
    );
    expect(() => loadConfig(withFile({ networks: { mainnet: { sandbox: { minDeposit: { notakey: 1 } } } } }))).toThrow(
      /networks\.mainnet\.sandbox\.minDeposit\.notakey/,
    );
    expect(() => loadConfig(withFile({ networks: { mainnet: { sandbox: { minimum: 1 } } } }))).toThrow(
      /networks\.mainnet\.sandbox\.minimum: is not a known setting/,
    );
  });
});
