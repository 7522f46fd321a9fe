import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { verifyingKeyFingerprint } from "../../../src-shared/ceremony/fingerprint";

const vkey: unknown = JSON.parse(readFileSync(new URL("../../../resources/zk/verification_key.json", import.meta.url), "utf8"));

describe("verifyingKeyFingerprint (pure)", () => {
  it("is the relay's former node:crypto fingerprint of the committed development key", () => {
    const k = vkey as Record<string, unknown>;
    const parts = [k.protocol, k.curve, k.nPublic, k.vk_alpha_1, k.vk_beta_2, k.vk_gamma_2, k.vk_delta_2, k.IC];
    expect(verifyingKeyFingerprint(vkey)).toBe(createHash("sha256").update(JSON.stringify(parts)).digest("hex"));
    expect(verifyingKeyFingerprint(vkey)).toBe("cb4263e9a41c5cdc7878a0cf1e6db21a9fd89b73a9c81b5d9734cc1456cc58b7");
  });

  it("ignores the file's formatting and fields outside the key", () => {
    const reformatted: unknown = JSON.parse(JSON.stringify({ ...(vkey as object), vk_alphabeta_12: [], extra: 1 }, null, 4));
    expect(verifyingKeyFingerprint(reformatted)).toBe(verifyingKeyFingerprint(vkey));
  });

  it("is null for something that is not a verifying key", () => {
    expect(verifyingKeyFingerprint(null)).toBeNull();
    expect(verifyingKeyFingerprint({ protocol: "groth16" })).toBeNull();
  });
});
