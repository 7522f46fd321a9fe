import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { SnarkjsVerificationKey } from "../../src-shared/zk/verification-key";
import { generateVerifyingKeyHeader, HEADER_PATH, VKEY_PATH, verifyingKeyBytes, verifyingKeyHeaderFor } from "../../tools/vkey/gen-verifying-key";

describe("programs/pool/src/verifying_key.h", () => {
  it("is exactly what gen-verifying-key.ts (tools/vkey) makes of resources/zk/verification_key.json (rerun it after a key swap)", () => {
    const fresh = generateVerifyingKeyHeader(readFileSync(VKEY_PATH));
    const committed = readFileSync(HEADER_PATH, "utf8");
    expect(committed, "stale header: npm run gen:vkey").toBe(fresh);
  });

  it("names the sha256 of the key it was made from", () => {
    const sha = createHash("sha256").update(readFileSync(VKEY_PATH)).digest("hex");
    expect(readFileSync(HEADER_PATH, "utf8")).toContain(`sha256 ${sha}`);
  });

  it("stores G2 points as x.c1, x.c0, y.c1, y.c0 (snarkjs's [c0, c1] swapped)", () => {
    const vk = JSON.parse(readFileSync(VKEY_PATH, "utf8")) as { vk_beta_2: string[][] };
    const header = generateVerifyingKeyHeader(readFileSync(VKEY_PATH));
    const block = header.slice(header.indexOf("VK_ALPHA_BETA[192]"), header.indexOf("};"));
    const bytes = [...block.matchAll(/0x([0-9a-f]{2}),/g)].map((m) => parseInt(m[1]!, 16));
    expect(bytes).toHaveLength(192);
    const word = (k: number): bigint => BigInt("0x" + Buffer.from(bytes.slice(32 * k, 32 * k + 32)).toString("hex"));
    const [x, y] = [vk.vk_beta_2[0]!, vk.vk_beta_2[1]!];
    expect([word(2), word(3), word(4), word(5)]).toEqual([BigInt(x[1]!), BigInt(x[0]!), BigInt(y[1]!), BigInt(y[0]!)]);
  });

  it("refuses a key that is not protocol v3's (six public inputs, as v2's)", () => {
    const vk = JSON.parse(readFileSync(VKEY_PATH, "utf8")) as { nPublic: number; IC: unknown[] };
    const v2 = JSON.stringify({ ...vk, nPublic: 6, IC: vk.IC.slice(0, 7) });
    expect(() => generateVerifyingKeyHeader(v2)).toThrow(/nPublic 7/);
  });
});

describe("verifyingKeyHeaderFor (a build for another key)", () => {
  it("gives the committed header's arrays for the development key as a file or as the object snarkjs exports, naming its source only in a comment", () => {
    const vk = JSON.parse(readFileSync(VKEY_PATH, "utf8")) as SnarkjsVerificationKey;
    const code = (h: string): string => h.replace(/\/\*[\s\S]*?\*\//g, "");
    const fromFile = verifyingKeyHeaderFor({ path: VKEY_PATH }, "ceremony/verification_key.json");
    expect(fromFile).toContain(" * From ceremony/verification_key.json, sha256 ");
    expect(code(fromFile)).toBe(code(readFileSync(HEADER_PATH, "utf8")));
    // The committed key file is written as snarkjs's CLI writes it, so the object's bytes are the file's.
    expect(Buffer.from(verifyingKeyBytes(vk)).equals(readFileSync(VKEY_PATH))).toBe(true);
    expect(code(verifyingKeyHeaderFor(vk))).toBe(code(fromFile));
  });
});
