/**
 * Writes programs/pool/src/verifying_key.h from resources/zk/verification_key.json
 * (snarkjs, bn128, protocol v3's seven public inputs):
 *
 *   npm run gen:vkey               # writes the header
 *   npm run gen:vkey -- --check    # exits 1 when the committed header is stale
 *
 * The arrays are in the alt_bn128 syscall encoding: 32-byte big-endian
 * coordinates, G1 = x‖y, G2 = x.c1‖x.c0‖y.c1‖y.c0 (snarkjs writes Fp2 as [c0, c1]).
 * The output depends on the vkey's bytes only, and names their sha256, so a test can
 * refuse a header left behind by a key swap (programs/pool/verifying-key.test.ts).
 *
 * A build for another key (`npm run build:programs -- --vkey <file>`, a ceremony's finalize)
 * takes the header text from {@link verifyingKeyHeaderFor} and compiles it in a scratch copy of
 * the sources: the committed header stays the development key's.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SnarkjsVerificationKey } from "../../src-shared/zk/verification-key";
import { BASE_FIELD_MODULUS } from "../../src-shared/zk/proof-codec";
import { writeOrCheckGenerated } from "../lib/generated-file";

const HERE = dirname(fileURLToPath(import.meta.url));
export const VKEY_PATH = join(HERE, "../../resources/zk/verification_key.json");
export const HEADER_PATH = join(HERE, "../../programs/pool/src/verifying_key.h");

export const N_PUBLIC = 7;

function field(s: string | undefined, what: string): bigint {
  if (s === undefined || !/^[0-9]+$/.test(s)) throw new Error(`${what}: not a decimal field element`);
  const v = BigInt(s);
  if (v >= BASE_FIELD_MODULUS) throw new Error(`${what}: not below the base field modulus`);
  return v;
}

function be32(v: bigint): number[] {
  const out = new Array<number>(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** A snarkjs affine G1 [x, y, "1"] as x‖y. The syscalls take affine points only, hence z = 1. */
function g1(p: string[] | undefined, what: string): number[] {
  if (!p || p.length !== 3 || p[2] !== "1") throw new Error(`${what}: expected an affine G1 point [x, y, "1"]`);
  return [...be32(field(p[0], `${what}.x`)), ...be32(field(p[1], `${what}.y`))];
}

/** A snarkjs affine G2 [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]] as x.c1‖x.c0‖y.c1‖y.c0. */
function g2(p: string[][] | undefined, what: string): number[] {
  const z = p?.[2];
  if (!p || p.length !== 3 || !z || z[0] !== "1" || z[1] !== "0") throw new Error(`${what}: expected an affine G2 point with z = [1, 0]`);
  const [x, y] = [p[0]!, p[1]!];
  return [
    ...be32(field(x[1], `${what}.x.c1`)),
    ...be32(field(x[0], `${what}.x.c0`)),
    ...be32(field(y[1], `${what}.y.c1`)),
    ...be32(field(y[0], `${what}.y.c0`)),
  ];
}

/** C initialiser lines: one 32-byte coordinate per two lines, each group labelled. */
function rows(bytes: number[], labels: string[], indent: string): string[] {
  const out: string[] = [];
  labels.forEach((label, k) => {
    out.push(`${indent}/* ${label} */`);
    for (let h = 0; h < 2; h++) {
      const chunk = bytes.slice(32 * k + 16 * h, 32 * k + 16 * h + 16);
      out.push(indent + chunk.map((b) => `0x${b.toString(16).padStart(2, "0")},`).join(" "));
    }
  });
  return out;
}

const G1_LABELS = (n: string): string[] => [`${n}.x`, `${n}.y`];
const G2_LABELS = (n: string): string[] => [`${n}.x.c1`, `${n}.x.c0`, `${n}.y.c1`, `${n}.y.c0`];

/**
 * The bytes a key is identified by: a file's exact bytes, or for a key object the text snarkjs's
 * CLI and tools/zk/setup.mjs write for it (`JSON.stringify(vkey, null, 1)` and a newline), so a
 * key exported in memory and the same key written to disk give the same header.
 */
export function verifyingKeyBytes(vkey: { path: string } | SnarkjsVerificationKey): Uint8Array {
  if ("path" in vkey && typeof vkey.path === "string") return readFileSync(vkey.path);
  return new TextEncoder().encode(JSON.stringify(vkey, null, 1) + "\n");
}

/** The header for a key given as a file path or a parsed key; `source` names it in the header's comment. */
export function verifyingKeyHeaderFor(vkey: { path: string } | SnarkjsVerificationKey, source?: string): string {
  const label = source ?? ("path" in vkey && typeof vkey.path === "string" ? vkey.path : "an in-memory verification key");
  return generateVerifyingKeyHeader(verifyingKeyBytes(vkey), label);
}

/**
 * The header text for a verification_key.json's exact bytes. `source` only names the key in a
 * comment (comments never reach the program's bytes): the committed header names the
 * repository's key.
 */
export function generateVerifyingKeyHeader(vkeyText: string | Uint8Array, source = "resources/zk/verification_key.json"): string {
  const text = typeof vkeyText === "string" ? vkeyText : new TextDecoder().decode(vkeyText);
  const sha = createHash("sha256").update(vkeyText).digest("hex");
  const vk = JSON.parse(text) as SnarkjsVerificationKey;
  if (vk.protocol !== "groth16" || vk.curve !== "bn128") throw new Error(`expected a groth16 bn128 key, got ${vk.protocol} ${vk.curve}`);
  if (vk.nPublic !== N_PUBLIC) throw new Error(`expected nPublic ${N_PUBLIC} (protocol v3), got ${vk.nPublic}`);
  if (!Array.isArray(vk.IC) || vk.IC.length !== N_PUBLIC + 1) throw new Error(`expected ${N_PUBLIC + 1} IC points, got ${vk.IC?.length}`);

  const alpha = g1(vk.vk_alpha_1, "alpha");
  const beta = g2(vk.vk_beta_2, "beta");
  const gamma = g2(vk.vk_gamma_2, "gamma");
  const delta = g2(vk.vk_delta_2, "delta");
  const ic = vk.IC.map((p, i) => g1(p, `IC[${i}]`));

  const L: string[] = [];
  L.push(
    "/*",
    " * GENERATED by tools/vkey/gen-verifying-key.ts; do not edit.",
    ` * From ${source}, sha256 ${sha}`,
    " * (groth16, bn128, nPublic 7: root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment).",
    " * After a key swap: npm run gen:vkey (a test fails until then).",
    " *",
    " * alt_bn128 syscall encoding: 32-byte big-endian coordinates, G1 = x||y,",
    " * G2 = x.c1||x.c0||y.c1||y.c0.",
    " */",
    "#ifndef POOL_VERIFYING_KEY_H",
    "#define POOL_VERIFYING_KEY_H",
    "",
    `#define VK_N_PUBLIC ${N_PUBLIC}`,
    "",
    "/* alpha (G1) || beta (G2): the constant pair of the pairing check, copied in as one block. */",
    "static const uint8_t VK_ALPHA_BETA[192] = {",
    ...rows([...alpha, ...beta], [...G1_LABELS("alpha"), ...G2_LABELS("beta")], "  "),
    "};",
    "",
    "static const uint8_t VK_GAMMA[128] = {",
    ...rows(gamma, G2_LABELS("gamma"), "  "),
    "};",
    "",
    "static const uint8_t VK_DELTA[128] = {",
    ...rows(delta, G2_LABELS("delta"), "  "),
    "};",
    "",
    "/* vk_x = IC[0] + sum(input[i] * IC[i + 1]). */",
    `static const uint8_t VK_IC[${N_PUBLIC + 1}][64] = {`,
  );
  ic.forEach((p, i) => {
    L.push("  {", ...rows(p, G1_LABELS(`IC[${i}]`), "    "), "  },");
  });
  L.push("};", "", "#endif", "");
  return L.join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeOrCheckGenerated(HEADER_PATH, generateVerifyingKeyHeader(readFileSync(VKEY_PATH)), "npm run gen:vkey");
}
