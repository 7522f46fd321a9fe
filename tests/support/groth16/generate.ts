/**
 * Regenerates proofs.json: real protocol v3 withdraw proofs (snarkjs fullProve
 * with the committed resources/zk artifacts) for different leaves, recipients,
 * amounts and relay terms (three plain withdrawals, two withdraw_swaps), all
 * bound to one fixed relayer and fee, so the verifier and chain tests need not
 * prove on every run (~3 s each). Each withdraws its deposit note's whole value:
 * its change leaf (the 7th signal) holds 0, with the note's secrets' change
 * secrets (deriveChangeSecrets) and the deposit leaf as origin, as the SDK makes it.
 *
 *   npx tsx tests/support/groth16/generate.ts
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
// @ts-expect-error -- snarkjs ships no type declarations; the slice used here is typed below.
import * as snarkjsUntyped from "snarkjs";
import nacl from "tweetnacl";
import { withdrawalPublicSignals } from "../../../src-server/core/proof/public-inputs";
import { computeChangeLeaf, computeLeaf, computePrecommitment, deriveChangeSecrets } from "../../../src-shared/crypto/protocol";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import type { SnarkjsProof } from "../../../src-server/core/proof/codec";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { bigIntToBytes32, bytesToBigInt } from "../../../src-shared/encoding/field";

interface SnarkjsSlice {
  groth16: {
    fullProve(input: object, wasm: string, zkey: string): Promise<{ proof: SnarkjsProof; publicSignals: string[] }>;
    verify(vkey: object, publicSignals: string[], proof: SnarkjsProof): Promise<boolean>;
  };
}
const snarkjs = snarkjsUntyped as unknown as SnarkjsSlice;

/** The relay's terms a recorded proof is bound to (extDataHash, protocol v2 and v3). */
export interface FixtureTerms {
  /** base58: the fixture relayer ({@link FIXTURE_RELAYER_SEED}). */
  relayer: string;
  /** Decimal base units of the withdrawn mint. */
  fee: string;
  /** base58, for a withdraw_swap proof. */
  outputMint?: string;
  /** Decimal base units of outputMint, for a withdraw_swap proof. */
  minOut?: string;
}
export interface ProofFixture {
  label: string;
  /** Decimal strings in circuit order: root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment. */
  publicSignals: string[];
  proof: SnarkjsProof;
  terms: FixtureTerms;
}
export interface ProofFixtures {
  vkeySha256: string;
  generatedBy: string;
  proofs: ProofFixture[];
}

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..", "..");
export const VKEY_PATH = join(ROOT, "resources/zk/verification_key.json");
export const FIXTURES_PATH = join(HERE, "proofs.json");
const DEPTH = 32;

/**
 * The relayer every recorded proof is bound to: an ed25519 keypair from this
 * 32-byte seed (Keypair.fromSeed / nacl.sign.keyPair.fromSeed), so a test that
 * signs with it can land the recorded proofs, and any other signer cannot.
 */
export const FIXTURE_RELAYER_SEED = createHash("sha256").update("private-withdrawal-relay/test-fixtures/relayer").digest();
export const FIXTURE_FEE = 5_000_000n;
export const FIXTURE_MINT = Uint8Array.from({ length: 32 }, (_, i) => 0xf0 - i);
/** The output mint of the swap cases. */
export const FIXTURE_OUTPUT_MINT = Uint8Array.from({ length: 32 }, (_, i) => 0x30 + i);
/** The seven deposited notes; note i holds (i + 1) SOL. */
export const FIXTURE_NOTE = (i: number) => ({ nullifier: 7000n + BigInt(i), secret: 0x5eed000n + BigInt(i), amount: BigInt(i + 1) * 1_000_000_000n });

interface FixtureCase {
  label: string;
  index: number;
  recipient: Uint8Array;
  swap?: { minOut: bigint };
}
export const FIXTURE_CASES: readonly FixtureCase[] = [
  { label: "leaf 0, 1 SOL", index: 0, recipient: Uint8Array.from({ length: 32 }, (_, i) => i + 1) },
  { label: "leaf 5, 6 SOL", index: 5, recipient: Uint8Array.from({ length: 32 }, (_, i) => 0xff - 3 * i) },
  { label: "leaf 6, 7 SOL", index: 6, recipient: new Uint8Array(32).fill(0x80) },
  // withdraw_swap proofs: one any venue with depth reaches, one that asks for more than a pool can pay.
  { label: "leaf 1, 2 SOL, swap min 1", index: 1, recipient: Uint8Array.from({ length: 32 }, (_, i) => 0x11 + i), swap: { minOut: 1n } },
  { label: "leaf 2, 3 SOL, swap unreachable", index: 2, recipient: Uint8Array.from({ length: 32 }, (_, i) => 0x51 + i), swap: { minOut: 1n << 62n } },
];

export const vkeySha256 = (): string => createHash("sha256").update(readFileSync(VKEY_PATH)).digest("hex");

async function main(): Promise<void> {
  const curve = await buildBn128(true);
  (globalThis as { curve_bn128?: unknown }).curve_bn128 = curve;
  const hasher = await createPoseidonHasher();
  const H = (xs: bigint[]): bigint => bytesToBigInt(hasher.hash(xs.map(bigIntToBytes32)));
  const zeros = [0n];
  for (let i = 0; i < DEPTH; i++) zeros.push(H([zeros[i]!, zeros[i]!]));

  const relayer = nacl.sign.keyPair.fromSeed(FIXTURE_RELAYER_SEED).publicKey;
  const notes = [0, 1, 2, 3, 4, 5, 6].map(FIXTURE_NOTE);
  const leaves = notes.map((n) =>
    bytesToBigInt(computeLeaf(hasher, computePrecommitment(hasher, bigIntToBytes32(n.nullifier), bigIntToBytes32(n.secret)), n.amount, FIXTURE_MINT)),
  );

  const vkey = JSON.parse(readFileSync(VKEY_PATH, "utf8")) as object;
  const proofs: ProofFixture[] = [];
  for (const c of FIXTURE_CASES) {
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
    const swap = c.swap ? { outputMint: FIXTURE_OUTPUT_MINT, minOut: c.swap.minOut } : null;
    const origin = bigIntToBytes32(leaves[c.index]!);
    const change = deriveChangeSecrets(hasher, bigIntToBytes32(note.nullifier), bigIntToBytes32(note.secret));
    const changeCommitment = computeChangeLeaf(hasher, computePrecommitment(hasher, change.nullifier, change.secret), 0n, FIXTURE_MINT, origin);
    const signals = withdrawalPublicSignals(hasher, {
      root: bigIntToBytes32(level[0]!),
      nullifierHash: bigIntToBytes32(H([note.nullifier])),
      recipient: c.recipient,
      amount: note.amount,
      mint: FIXTURE_MINT,
      terms: { relayer, fee: FIXTURE_FEE, swap },
      changeCommitment,
    }).map((s) => bytesToBigInt(s).toString());
    const input = {
      root: signals[0],
      nullifierHash: signals[1],
      recipient: signals[2],
      amount: signals[3],
      mint: signals[4],
      extDataHash: signals[5],
      changeCommitment: signals[6],
      value: note.amount.toString(),
      nullifier: note.nullifier.toString(),
      secret: note.secret.toString(),
      isChange: "0",
      origin: bytesToBigInt(origin).toString(),
      pathElements: pathElements.map(String),
      pathIndices: pathIndices.map(String),
      changeNullifier: bytesToBigInt(change.nullifier).toString(),
      changeSecret: bytesToBigInt(change.secret).toString(),
    };
    const { proof, publicSignals } = await snarkjs.groth16.fullProve(input, join(ROOT, "resources/zk/withdraw.wasm"), join(ROOT, "resources/zk/withdraw.zkey"));
    if (JSON.stringify(publicSignals) !== JSON.stringify(signals)) throw new Error(`${c.label}: circuit public signals differ from the relay's`);
    if (!(await snarkjs.groth16.verify(vkey, publicSignals, proof))) throw new Error(`${c.label}: snarkjs rejects its own proof`);
    const terms: FixtureTerms = {
      relayer: encodeBase58(relayer),
      fee: FIXTURE_FEE.toString(),
      ...(swap ? { outputMint: encodeBase58(swap.outputMint), minOut: swap.minOut.toString() } : {}),
    };
    proofs.push({ label: c.label, publicSignals, proof: { pi_a: proof.pi_a, pi_b: proof.pi_b, pi_c: proof.pi_c, protocol: "groth16", curve: "bn128" }, terms });
    console.log(`proved ${c.label}`);
  }
  const out: ProofFixtures = { vkeySha256: vkeySha256(), generatedBy: "tests/support/groth16/generate.ts", proofs };
  writeFileSync(FIXTURES_PATH, JSON.stringify(out, null, 1) + "\n");
  console.log(`wrote ${FIXTURES_PATH}`);
  await curve.terminate();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
