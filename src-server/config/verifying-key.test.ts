import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "./load";
import { programElfHash } from "../../src-shared/ceremony/program-hash";
import { signedTranscript, writeKeyDir } from "../../tests/support/ceremony-transcript";
import {
  checkVerifyingKey,
  DEVELOPMENT_PROGRAM_PATH,
  DEVELOPMENT_VKEY_FINGERPRINT,
  DEVELOPMENT_VKEY_SEED,
  isDevelopmentVerifyingKey,
  keyExpectation,
  verifyingKeyFingerprint,
} from "./verifying-key";

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

describe("the program a solana network's key belongs to (keyExpectation)", () => {
  const dev = JSON.parse(readFileSync(DEV_KEY, "utf8")) as Record<string, unknown>;
  const delta = dev.vk_delta_2 as string[][];
  const other = { ...dev, vk_delta_2: [[...delta[0]!].reverse(), delta[1], delta[2]] };
  const otherFingerprint = verifyingKeyFingerprint(other)!;
  const programSha256 = "ab".repeat(32);
  let n = 0;
  const keyDir = (transcript: unknown) => writeKeyDir(path.join(dir, `key-${++n}`), other, transcript);

  it("is the committed development build, hashed from programs/pool/pool.so at start, for the development key", () => {
    const e = keyExpectation(solanaConfig({ allowDevelopmentVerifyingKey: true }));
    expect(e).toEqual({
      kind: "development",
      fingerprint: DEVELOPMENT_VKEY_FINGERPRINT,
      programPath: DEVELOPMENT_PROGRAM_PATH,
      programHash: programElfHash(readFileSync(DEVELOPMENT_PROGRAM_PATH)),
    });
    expect(() => keyExpectation(solanaConfig({ allowDevelopmentVerifyingKey: true }), { developmentProgramPath: path.join(dir, "gone.so") })).toThrow(
      /^config verifier\.vkeyPath: is the development key, and the committed development build \S*gone\.so it belongs to cannot be read/,
    );
  });

  it("is final.programSha256 of a ceremony key's verified transcript, with its summary", () => {
    const e = keyExpectation(solanaConfig({}, keyDir(signedTranscript({ vkeyFingerprint: otherFingerprint, programSha256 }))));
    expect(e).toMatchObject({ kind: "ceremony", fingerprint: otherFingerprint, programHash: programSha256, ceremony: { contributions: 3 } });
  });

  it("refuses (exit 2) a ceremony key without its transcript, with a transcript that does not verify or that records another key, naming the fingerprint", () => {
    const refused =
      (vkeyPath: string, extra: Record<string, unknown> = {}) =>
      () =>
        keyExpectation(solanaConfig(extra, vkeyPath));
    const fp = otherFingerprint;
    const lone = path.join(dir, "lone");
    const vkeyAlone = writeKeyDir(lone, other, {});
    rmSync(path.join(lone, "ceremony.json"));
    expect(refused(vkeyAlone)).toThrow(
      new RegExp(
        `^config verifier\\.vkeyPath: the verifying key \\S+ \\(fingerprint ${fp}\\) is not the development key, and its transcript \\S+ceremony\\.json cannot be read`,
      ),
    );
    const two = signedTranscript({ vkeyFingerprint: fp, programSha256, contributors: 2 });
    expect(refused(keyDir(two))).toThrow(/does not verify: 2 contributor\(s\) signed, at least 3 are required/);
    // The configured minimum decides.
    expect(
      keyExpectation(
        loadConfig({
          RELAY_CONFIG: file(
            `min-${n}.json`,
            JSON.stringify({
              networks: { mainnet: { backend: "solana", rpcUrl: "http://127.0.0.1:8899" } },
              verifier: { vkeyPath: keyDir(two), minContributions: 2 },
            }),
          ),
        }),
      ),
    ).toMatchObject({ kind: "ceremony" });
    const test = signedTranscript({ vkeyFingerprint: fp, programSha256 });
    test.phase1.test = true;
    expect(refused(keyDir(test))).toThrow(/does not verify: the phase-1 file \S+ was marked as a test file/);
    const forged = signedTranscript({ vkeyFingerprint: fp, programSha256 });
    forged.entries[1]!.zkeySha256 = "ee".repeat(32);
    expect(refused(keyDir(forged))).toThrow(/does not verify: contribution (2's signature does not verify|3 starts from zkey)/);
    const noBeacon = signedTranscript({ vkeyFingerprint: fp, programSha256 });
    noBeacon.beacon.blockhash = null;
    noBeacon.beacon.blockSlot = null;
    expect(refused(keyDir(noBeacon))).toThrow(/does not verify: the transcript is final but has no beacon blockhash/);
    expect(refused(keyDir(signedTranscript({ vkeyFingerprint: "99".repeat(32), programSha256 })))).toThrow(/records another key \(fingerprint 9{64}\)/);
  });

  it("is not asked for when no solana network is enabled", () => {
    expect(keyExpectation(loadConfig({}))).toBeNull();
  });
});
