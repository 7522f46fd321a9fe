import { describe, expect, it } from "vitest";
import { KNOWN_PHASE1_FILES, knownPhase1File, requiredPhase1Power } from "./phase1-hashes";

describe("the published phase-1 hash table", () => {
  it("lists the Hermez prepared files 2^8..2^28, one per power, each with a 128-hex blake2b", () => {
    expect(KNOWN_PHASE1_FILES.map((f) => f.power)).toEqual(Array.from({ length: 21 }, (_, i) => i + 8));
    for (const f of KNOWN_PHASE1_FILES) expect(f.blake2b512).toMatch(/^[0-9a-f]{128}$/);
    expect(new Set(KNOWN_PHASE1_FILES.map((f) => f.blake2b512)).size).toBe(KNOWN_PHASE1_FILES.length);
  });

  it("finds the 2^14 file by its published hash, in either case", () => {
    const h = "eeefbcf7c3803b523c94112023c7ff89558f9b8e0cf5d6cdcba3ade60f168af4a181c9c21774b94fbae6c90411995f7d854d02ebd93fb66043dbb06f17a831c1";
    expect(knownPhase1File(h)).toMatchObject({ source: "hermez", name: "powersOfTau28_hez_final_14.ptau", power: 14 });
    expect(knownPhase1File(h.toUpperCase())?.power).toBe(14);
  });

  it("knows no file with any other hash", () => {
    expect(knownPhase1File("00".repeat(64))).toBeNull();
  });

  it("asks 2^14 for the withdraw circuit (9,490 constraints, 7 public inputs) and 2^15 one constraint past 2^14", () => {
    expect(requiredPhase1Power(9490, 7)).toBe(14);
    expect(requiredPhase1Power(2 ** 14 - 8, 7)).toBe(14);
    expect(requiredPhase1Power(2 ** 14 - 7, 7)).toBe(15);
  });
});
