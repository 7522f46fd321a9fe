/**
 * Regenerates proofs.json: three real withdraw proofs (snarkjs fullProve with
 * the committed resources/zk artifacts) for different leaves, recipients and
 * amounts, so the verifier tests need not prove on every run (~2 s each).
 *
 *   npx tsx src-server/adapters/verifier-groth16/test-fixtures/generate.ts
 *
 * Rerun after the circuit artifacts change: the tests compare the recorded
 * sha256 of verification_key.json with the committed one and say so.
 * Proofs are randomised (snarkjs samples r, s), so a rerun changes the file.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBn128 } from "ffjavascript";
// @ts-ignore -- snarkjs ships no type declarations; the slice used here is typed below.
import * as snarkjsUntyped from "snarkjs";
import { pubkeyToField, withdrawalPublicSignals } from "../../../core/proof/public-inputs";
import type { SnarkjsProof } from "../../../core/proof/codec";
import { createPoseidonHasher } from "../../../../src-shared/crypto/poseidon-wasm";
import { bigIntToBytes32, bytesToBigInt } from "../../../../src-shared/encoding/field";

interface SnarkjsSlice {
  groth16: {
    fullProve(input: object, wasm: string, zkey: string): Promise<{ proof: SnarkjsProof; publicSignals: string[] }>;
    verify(vkey: object, publicSignals: string[], proof: SnarkjsProof): Promise<boolean>;
  };
}
const snarkjs = snarkjsUntyped as unknown as SnarkjsSlice;

export interface ProofFixture {
  label: string;
  /** Decimal strings in circuit order: root, nullifierHash, recipient, amount, mint. */
  publicSignals: string[];
  proof: SnarkjsProof;
}
export interface ProofFixtures {
  vkeySha256: string;
  generatedBy: string;
  proofs: ProofFixture[];
}

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..", "..", "..");
export const VKEY_PATH = join(ROOT, "resources/zk/verification_key.json");
export const FIXTURES_PATH = join(HERE, "proofs.json");
const DEPTH = 32;

export const vkeySha256 = (): string => createHash("sha256").update(readFileSync(VKEY_PATH)).digest("hex");

async function main(): Promise<void> {
  const curve = await buildBn128(true);
  (globalThis as { curve_bn128?: unknown }).curve_bn128 = curve;
  const hasher = await createPoseidonHasher();
  const H = (xs: bigint[]): bigint => bytesToBigInt(hasher.hash(xs.map(bigIntToBytes32)));
  const zeros = [0n];
  for (let i = 0; i < DEPTH; i++) zeros.push(H([zeros[i]!, zeros[i]!]));

  const mint = Uint8Array.from({ length: 32 }, (_, i) => 0xf0 - i);
  const mintField = bytesToBigInt(pubkeyToField(hasher, mint));
  const notes = [0, 1, 2, 3, 4, 5, 6].map((i) => ({ nullifier: 7000n + BigInt(i), secret: 0x5eed000n + BigInt(i), amount: BigInt(i + 1) * 1_000_000_000n }));
  const leaves = notes.map((n) => H([n.nullifier, n.secret, n.amount, mintField]));

  const cases = [
    { label: "leaf 0, 1 SOL", index: 0, recipient: Uint8Array.from({ length: 32 }, (_, i) => i + 1) },
    { label: "leaf 5, 6 SOL", index: 5, recipient: Uint8Array.from({ length: 32 }, (_, i) => 0xff - 3 * i) },
    { label: "leaf 6, 7 SOL", index: 6, recipient: new Uint8Array(32).fill(0x80) },
  ];
  const vkey = JSON.parse(readFileSync(VKEY_PATH, "utf8")) as object;
  const proofs: ProofFixture[] = [];
  for (const c of cases) {
    const pathElements: bigint[] = [];
    const pathIndices: number[] = [];
    let level = leaves.slice();
    let idx = c.index;
    for (let i = 0; i < DEPTH; i++) {
      pathElements.push((idx ^ 1) < level.length ? level[idx ^ 1]! : zeros[i]!);
      pathIndices.push(idx & 1);
      const next: bigint[] = [];
      for (let j = 0; j < level.length; j += 2) next.push(H([level[j]!, j + 1 < level.length ? level[j + 1]! : zeros[i]!]));
      level = next;
      idx >>= 1;
    }
    const note = notes[c.index]!;
    const signals = withdrawalPublicSignals(hasher, {
      root: bigIntToBytes32(level[0]!),
      nullifierHash: bigIntToBytes32(H([note.nullifier])),
      recipient: c.recipient,
      amount: note.amount,
      mint,
    }).map((s) => bytesToBigInt(s).toString());
    const input = {
      root: signals[0],
      nullifierHash: signals[1],
      recipient: signals[2],
      amount: signals[3],
      mint: signals[4],
      nullifier: note.nullifier.toString(),
      secret: note.secret.toString(),
      pathElements: pathElements.map(String),
      pathIndices: pathIndices.map(String),
    };
    const { proof, publicSignals } = await snarkjs.groth16.fullProve(input, join(ROOT, "resources/zk/withdraw.wasm"), join(ROOT, "resources/zk/withdraw.zkey"));
    if (JSON.stringify(publicSignals) !== JSON.stringify(signals)) throw new Error(`${c.label}: circuit public signals differ from the relay's`);
    if (!(await snarkjs.groth16.verify(vkey, publicSignals, proof))) throw new Error(`${c.label}: snarkjs rejects its own proof`);
    proofs.push({ label: c.label, publicSignals, proof: { pi_a: proof.pi_a, pi_b: proof.pi_b, pi_c: proof.pi_c, protocol: "groth16", curve: "bn128" } });
    console.log(`proved ${c.label}`);
  }
  const out: ProofFixtures = { vkeySha256: vkeySha256(), generatedBy: "src-server/adapters/verifier-groth16/test-fixtures/generate.ts", proofs };
  writeFileSync(FIXTURES_PATH, JSON.stringify(out, null, 1) + "\n");
  console.log(`wrote ${FIXTURES_PATH}`);
  await curve.terminate();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
