/**
 * Protocol v2's promise, checked with real proofs and the relay's verifier: a
 * proof is worth nothing on any terms but those it was made for. Each recorded
 * proof verifies with the signals recomputed from its own terms, and fails once
 * the relayer, the fee, the output mint or minOut differ, or with v1's five signals.
 */
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { withdrawalPublicSignals, type RelayTerms } from "../../../src-shared/crypto/protocol";
import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { bigIntToBytes32 } from "../../../src-shared/encoding/field";
import { Groth16MclVerifier } from "./groth16-mcl";
import { FIXTURE_CASES, FIXTURE_MINT, FIXTURE_RELAYER_SEED, loadFixtures, VKEY_PATH, type WireCase } from "../../../tests/support/groth16/fixtures";

const decodeBase58 = (s: string): Uint8Array => {
  const r = parsePublicKey(s);
  if (!r.ok) throw new Error(`${s}: ${r.error}`);
  return r.value;
};

let verifier: Groth16MclVerifier;
let hasher: FieldHasher;
let cases: WireCase[];

beforeAll(async () => {
  verifier = await Groth16MclVerifier.fromFile(VKEY_PATH);
  hasher = await createPoseidonHasher();
  cases = loadFixtures();
});
afterAll(() => verifier.close());

const termsOf = (c: WireCase): RelayTerms => ({
  relayer: decodeBase58(c.terms.relayer),
  fee: BigInt(c.terms.fee),
  swap: c.terms.outputMint ? { outputMint: decodeBase58(c.terms.outputMint), minOut: BigInt(c.terms.minOut!) } : null,
});
const signalsFor = (c: WireCase, terms: RelayTerms): Uint8Array[] =>
  withdrawalPublicSignals(hasher, {
    root: c.signals[0]!,
    nullifierHash: c.signals[1]!,
    recipient: decodeRecipient(c),
    amount: BigInt(c.snarkjsSignals[3]!),
    mint: FIXTURE_MINT,
    terms,
    changeCommitment: c.signals[6]!,
  });
// The proof carries the recipient's field element; its key bytes are the generator's.
const decodeRecipient = (c: WireCase): Uint8Array => FIXTURE_CASES.find((x) => x.label === c.label)!.recipient;

describe("a recorded v2 proof is bound to its relay's terms", () => {
  it("verifies with the signals the relay recomputes from its own terms", () => {
    const relayer = nacl.sign.keyPair.fromSeed(FIXTURE_RELAYER_SEED).publicKey;
    for (const c of cases) {
      expect(decodeBase58(c.terms.relayer)).toEqual(relayer);
      const signals = signalsFor(c, termsOf(c));
      expect(signals).toEqual(c.signals);
      expect(verifier.verify(c.proof, signals)).toBe(true);
    }
  });

  it("fails with another fee, another relayer, or (swap) another output mint or a lower minOut", () => {
    for (const c of cases) {
      const t = termsOf(c);
      const variants: RelayTerms[] = [
        { ...t, fee: t.fee + 1n },
        { ...t, fee: BigInt(c.snarkjsSignals[3]!) },
        { ...t, relayer: nacl.sign.keyPair().publicKey },
        t.swap ? { ...t, swap: null } : { ...t, swap: { outputMint: FIXTURE_MINT, minOut: 1n } },
      ];
      if (t.swap)
        variants.push(
          { ...t, swap: { ...t.swap, minOut: t.swap.minOut - 1n } },
          { ...t, swap: { ...t.swap, minOut: 0n } },
          { ...t, swap: { ...t.swap, outputMint: FIXTURE_MINT } },
        );
      for (const v of variants)
        expect(verifier.verify(c.proof, signalsFor(c, v)), `${c.label}: ${JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x))}`).toBe(
          false,
        );
    }
  });

  it("fails as a v1 proof would be checked: five signals, or a zero extDataHash", () => {
    const c = cases[0]!;
    expect(verifier.verify(c.proof, c.signals.slice(0, 5))).toBe(false);
    expect(verifier.verify(c.proof, [...c.signals.slice(0, 5), bigIntToBytes32(0n)])).toBe(false);
  });
});
