import { describe, expect, it } from "vitest";
import { pgStoresPerTest } from "../../tests/support/pg-stores";
import { ConfigError } from "../config/config-error";
import { checkSharedKeys } from "./shared-keys";

const pg = pgStoresPerTest();
const COMPLIANCE = "3bjLyPv6e3oL4TSWdDkBHucX24qAxfG47zKp1rFCL9rT";
const RELAYER = "4oBSHGH6r1YE6cJ3pwXMejztvsAHu37EvzeJKC2bxu4m";
const OTHER = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

describe("checkSharedKeys on one PostgreSQL database", () => {
  it("lets every instance with the first instance's compliance key and relayer start, however often they restart", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const keys = { compliance: COMPLIANCE, relayers: new Map([["mainnet" as const, RELAYER]]) };
    await checkSharedKeys(a.coordination, keys);
    await checkSharedKeys(b.coordination, keys);
    await checkSharedKeys(a.coordination, keys);
  });

  it("stops an instance whose compliance key differs, naming both keys and the file to copy", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    await checkSharedKeys(a.coordination, { compliance: COMPLIANCE, relayers: new Map() });
    const refused = checkSharedKeys(b.coordination, { compliance: OTHER, relayers: new Map() });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      new RegExp(`compliance key ${OTHER} .*\\(${COMPLIANCE}, first recorded by ${a.coordination.instanceId}\\).*keys/compliance.json`),
    );
  });

  it("stops an instance with another relayer on a network, and lets a network nobody recorded take its own", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    await checkSharedKeys(a.coordination, { compliance: COMPLIANCE, relayers: new Map([["mainnet" as const, RELAYER]]) });
    await expect(checkSharedKeys(b.coordination, { compliance: COMPLIANCE, relayers: new Map([["mainnet" as const, OTHER]]) })).rejects.toThrow(
      /networks\.mainnet\.solana\.relayerKeypairPath: this instance's relayer 9WzD.* is not the one/,
    );
    await checkSharedKeys(b.coordination, { compliance: COMPLIANCE, relayers: new Map([["devnet" as const, OTHER]]) });
  });
});
