import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "./load";
import { checkVerifyingKey, DEVELOPMENT_VKEY_FINGERPRINT, DEVELOPMENT_VKEY_SEED, isDevelopmentVerifyingKey, verifyingKeyFingerprint } from "./verifying-key";

const DEV_KEY = new URL("../../resources/zk/verification_key.json", import.meta.url);
const dir = mkdtempSync(path.join(tmpdir(), "vkey-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string): string => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};
const solanaConfig = (extra: Record<string, unknown> = {}, vkeyPath?: string) =>
  loadConfig({
    RELAY_CONFIG: file(
      `cfg-${Math.random()}.json`,
      JSON.stringify({
        networks: { mainnet: { backend: "solana", rpcUrl: "http://127.0.0.1:8899", ...extra } },
        ...(vkeyPath ? { verifier: { vkeyPath } } : {}),
      }),
    ),
  });

describe("the development verifying key", () => {
  const dev = JSON.parse(readFileSync(DEV_KEY, "utf8")) as Record<string, unknown>;

  it("is protocol v3's, from the published v3 seed", () => {
    expect(dev.nPublic).toBe(7);
    expect(DEVELOPMENT_VKEY_SEED).toBe("private-withdrawal-relay-dev-v3");
  });

  it("is recognised by its points, however the file is formatted, and another key is not", () => {
    expect(verifyingKeyFingerprint(dev)).toBe(DEVELOPMENT_VKEY_FINGERPRINT);
    // Protocol v2's development key (seed private-withdrawal-relay-dev-v2) is retired.
    expect(DEVELOPMENT_VKEY_FINGERPRINT).not.toBe("db18e260108d9f8a932807e90ea8828324a75fd44f268209d7424926fc82fdfb");
    expect(isDevelopmentVerifyingKey(file("dev-reformatted.json", JSON.stringify(dev, null, 4)))).toBe(true);
    const delta = dev.vk_delta_2 as string[][];
    const other = { ...dev, vk_delta_2: [[...delta[0]!].reverse(), delta[1], delta[2]] };
    expect(isDevelopmentVerifyingKey(file("other.json", JSON.stringify(other)))).toBe(false);
    expect(isDevelopmentVerifyingKey(path.join(dir, "missing.json"))).toBe(false);
  });

  it("stops a solana network from starting on it, naming the network and the setting, unless that network allows it", () => {
    expect(() => checkVerifyingKey(solanaConfig())).toThrow(
      /^config networks\.mainnet\.allowDevelopmentVerifyingKey: is not set, and the solana network mainnet would verify proofs with the development verifying key .*verification_key\.json/,
    );
    expect(checkVerifyingKey(solanaConfig({ allowDevelopmentVerifyingKey: true }))).toEqual(["mainnet"]);
    const dev2 = file("dev-copy.json", JSON.stringify(dev));
    expect(() => checkVerifyingKey(solanaConfig({}, dev2))).toThrow(/allowDevelopmentVerifyingKey/);
  });

  it("leaves sandbox networks and other keys alone", () => {
    expect(checkVerifyingKey(loadConfig({}))).toEqual([]);
    const delta = dev.vk_delta_2 as string[][];
    const ceremony = file("ceremony.json", JSON.stringify({ ...dev, vk_delta_2: [[...delta[0]!].reverse(), delta[1], delta[2]] }));
    expect(checkVerifyingKey(solanaConfig({}, ceremony))).toEqual([]);
  });
});
