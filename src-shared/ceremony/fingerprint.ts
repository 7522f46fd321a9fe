import { sha256Hex } from "./sha256";

/**
 * sha256 over the key's points (α, β, γ, δ, IC) with protocol, curve and nPublic, as JSON
 * in that order: the same key gives the same fingerprint however its file is formatted.
 * Pure (no node:crypto) so the relay, the console and the ceremony tool compute the same
 * value; null when the value is not a snarkjs verifying key.
 */
export function verifyingKeyFingerprint(vkey: unknown): string | null {
  if (typeof vkey !== "object" || vkey === null) return null;
  const k = vkey as Record<string, unknown>;
  const parts = [k.protocol, k.curve, k.nPublic, k.vk_alpha_1, k.vk_beta_2, k.vk_gamma_2, k.vk_delta_2, k.IC];
  if (parts.some((p) => p === undefined)) return null;
  return sha256Hex(JSON.stringify(parts));
}
