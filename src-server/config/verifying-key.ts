import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { NETWORKS, type Network } from "../../src-shared/networks";
import { ConfigError } from "./load";
import type { RelayConfig } from "./schema";

/**
 * Fingerprint of the development verifying key committed in resources/zk/ (docs/zk.md):
 * made by a one-party setup from the published seed `private-withdrawal-relay-dev-v3`
 * (protocol v3's circuit, seven public inputs), so anyone can recompute its toxic waste
 * and forge proofs that verify under it.
 */
export const DEVELOPMENT_VKEY_FINGERPRINT = "cb4263e9a41c5cdc7878a0cf1e6db21a9fd89b73a9c81b5d9734cc1456cc58b7";
export const DEVELOPMENT_VKEY_SEED = "private-withdrawal-relay-dev-v3";

/**
 * sha256 over the key's points (α, β, γ, δ, IC) with protocol, curve and nPublic, as JSON
 * in that order: the same key gives the same fingerprint however its file is formatted.
 */
export function verifyingKeyFingerprint(vkey: unknown): string | null {
  if (typeof vkey !== "object" || vkey === null) return null;
  const k = vkey as Record<string, unknown>;
  const parts = [k.protocol, k.curve, k.nPublic, k.vk_alpha_1, k.vk_beta_2, k.vk_gamma_2, k.vk_delta_2, k.IC];
  if (parts.some((p) => p === undefined)) return null;
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/** Whether the key file is the development key; false when it cannot be read (the verifier reports that at start). */
export function isDevelopmentVerifyingKey(vkeyPath: string): boolean {
  try {
    return verifyingKeyFingerprint(JSON.parse(readFileSync(vkeyPath, "utf8"))) === DEVELOPMENT_VKEY_FINGERPRINT;
  } catch {
    return false;
  }
}

/**
 * A solana network moves real funds: it does not start on the development verifying key
 * unless the operator said so for that network (`networks.<n>.allowDevelopmentVerifyingKey`,
 * for a test cluster or the local validator). The sandbox never needs it. Returns the
 * networks that start on it anyway (the start-up log and the console say so).
 */
export function checkVerifyingKey(config: RelayConfig): Network[] {
  const solana = NETWORKS.filter((n) => config.networks[n].enabled && config.networks[n].backend === "solana");
  if (solana.length === 0 || !isDevelopmentVerifyingKey(config.verifier.vkeyPath)) return [];
  for (const n of solana) {
    if (!config.networks[n].allowDevelopmentVerifyingKey) {
      throw new ConfigError(
        `networks.${n}.allowDevelopmentVerifyingKey`,
        `is not set, and the solana network ${n} would verify proofs with the development verifying key ${config.verifier.vkeyPath} ` +
          `(fingerprint ${DEVELOPMENT_VKEY_FINGERPRINT.slice(0, 16)}, from the published seed "${DEVELOPMENT_VKEY_SEED}": anyone can forge proofs for it). ` +
          `Use a key from a multi-party ceremony (verifier.vkeyPath, docs/zk.md), or set it to true for a test network only`,
      );
    }
  }
  return solana;
}
