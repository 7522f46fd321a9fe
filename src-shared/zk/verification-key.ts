/**
 * snarkjs's Groth16 verification key as JSON, and its shape check: pure, so the
 * relay's verifier, the program build (tools/) and the tests read keys the same way.
 */
import { err, ok, type Result } from "../result";

/** snarkjs's verification_key.json (decimal strings, projective; G2 as [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]). */
export interface SnarkjsVerificationKey {
  protocol: string;
  curve: string;
  nPublic: number;
  vk_alpha_1: string[];
  vk_beta_2: string[][];
  vk_gamma_2: string[][];
  vk_delta_2: string[][];
  IC: string[][];
}

const isStringArray = (v: unknown, n: number): v is string[] => Array.isArray(v) && v.length === n && v.every((s) => typeof s === "string");

/** Shape check of a snarkjs Groth16 key for bn128; the points are checked when the verifier is built. */
export function parseVerificationKey(v: unknown): Result<SnarkjsVerificationKey, string> {
  if (typeof v !== "object" || v === null) return err("verification key is not an object");
  const k = v as Record<string, unknown>;
  if (k.protocol !== "groth16") return err(`protocol ${String(k.protocol)} is not groth16`);
  if (k.curve !== "bn128") return err(`curve ${String(k.curve)} is not bn128`);
  const nPublic = k.nPublic;
  if (typeof nPublic !== "number" || !Number.isInteger(nPublic) || nPublic < 0) return err("nPublic is not a non-negative integer");
  const g1 = (x: unknown): boolean => isStringArray(x, 3);
  const g2 = (x: unknown): boolean => Array.isArray(x) && x.length === 3 && x.every((c) => isStringArray(c, 2));
  if (!g1(k.vk_alpha_1)) return err("vk_alpha_1 is not a G1 point");
  for (const name of ["vk_beta_2", "vk_gamma_2", "vk_delta_2"]) if (!g2(k[name])) return err(`${name} is not a G2 point`);
  if (!Array.isArray(k.IC) || k.IC.length !== nPublic + 1 || !k.IC.every(g1)) return err(`IC is not ${nPublic + 1} G1 points`);
  return ok(k as unknown as SnarkjsVerificationKey);
}
