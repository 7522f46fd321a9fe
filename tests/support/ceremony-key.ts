/**
 * A new, valid Groth16 key for the withdraw circuit, in seconds, for tests of "a program built for
 * another key": the committed development zkey plus one snarkjs phase-2 contribution with OS
 * entropy (zKey.contribute, what a ceremony contributor runs). The contribution multiplies δ by a
 * secret nobody keeps, so the new key shares nothing forgeable with the development key (its α
 * and β still come from the seeded phase 1: fine for a test, and exactly why a real ceremony
 * uses a public phase-1 file, docs/ceremony.md). No powers-of-tau file is needed.
 *
 * The key is cached under out/ceremony-test-key/, keyed by the development zkey's sha256 and the
 * snarkjs version: the suite pays for the contribution (~10 s on one thread) once per checkout.
 * {@link ceremonyProver} caches real proofs made with it the same way tests/support/proofs.ts
 * does for the development key, checking a hit against this key's vkey.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SnarkjsVerificationKey } from "../../src-shared/zk/verification-key";
import { verifyingKeyFingerprint } from "../../src-shared/ceremony/fingerprint";
import { DEFAULT_ARTIFACTS, fastProver, verifyWithdrawalProof, type Prover } from "../../src-client/sdk/prove";
import { withSingleThreadedCurve } from "../../src-client/sdk/snarkjs";
import { PUBLIC_SIGNAL_NAMES } from "../../src-shared/crypto/protocol";
import { encodeProof, fromSnarkjs, type SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { witnessInputKey } from "./proofs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CEREMONY_KEY_CACHE_DIR = path.join(ROOT, "out", "ceremony-test-key");
const PROOF_CACHE_DIR = path.join(ROOT, "out", "test-proofs", "ceremony-key");

export interface CeremonyTestKey {
  /** The withdraw circuit's wasm: the circuit is the development key's. */
  wasmPath: string;
  zkeyPath: string;
  vkeyPath: string;
  vkey: SnarkjsVerificationKey;
  /** verifyingKeyFingerprint of the vkey. */
  fingerprint: string;
  /** Whether this call found the key in the cache. */
  cached: boolean;
}

interface SnarkjsZkey {
  zKey: {
    contribute(oldPath: string, newPath: string, name: string, entropy: string): Promise<Uint8Array>;
    exportVerificationKey(zkeyPath: string): Promise<SnarkjsVerificationKey>;
  };
}

interface KeyMeta {
  developmentZkeySha256: string;
  snarkjsVersion: string;
  zkeySha256: string;
  fingerprint: string;
}

const sha256 = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");

function snarkjsVersion(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve("snarkjs");
  const pkg = path.join(path.dirname(main), "..", "package.json");
  return (JSON.parse(readFileSync(existsSync(pkg) ? pkg : path.join(path.dirname(main), "package.json"), "utf8")) as { version: string }).version;
}

/** The cached key in `dir` when it is whole and belongs to this development zkey; else null. */
function readCached(dir: string, devSha: string, version: string): CeremonyTestKey | null {
  try {
    const meta = JSON.parse(readFileSync(path.join(dir, "key.json"), "utf8")) as KeyMeta;
    const zkeyPath = path.join(dir, "withdraw.zkey");
    const vkeyPath = path.join(dir, "verification_key.json");
    if (meta.developmentZkeySha256 !== devSha || meta.snarkjsVersion !== version) return null;
    if (sha256(readFileSync(zkeyPath)) !== meta.zkeySha256) return null;
    const vkey = JSON.parse(readFileSync(vkeyPath, "utf8")) as SnarkjsVerificationKey;
    if (verifyingKeyFingerprint(vkey) !== meta.fingerprint) return null;
    return { wasmPath: DEFAULT_ARTIFACTS.wasmPath, zkeyPath, vkeyPath, vkey, fingerprint: meta.fingerprint, cached: true };
  } catch {
    return null;
  }
}

let pending: Promise<CeremonyTestKey> | null = null;

/** The test ceremony key: made once (one contribution on top of the development zkey), then read from the cache. */
export function ceremonyTestKey(): Promise<CeremonyTestKey> {
  pending ??= makeOrRead();
  return pending;
}

async function makeOrRead(): Promise<CeremonyTestKey> {
  const devSha = sha256(readFileSync(DEFAULT_ARTIFACTS.zkeyPath));
  const version = snarkjsVersion();
  const dir = path.join(CEREMONY_KEY_CACHE_DIR, `${devSha.slice(0, 16)}-snarkjs-${version}`);
  const hit = readCached(dir, devSha, version);
  if (hit) return hit;

  // Built beside the final directory and renamed into place, so a concurrent test file either
  // finds a whole key or makes its own; the first rename wins and the other copy is dropped.
  const tmp = `${dir}.${randomUUID()}.tmp`;
  mkdirSync(tmp, { recursive: true });
  try {
    // @ts-expect-error -- snarkjs ships no type declarations; the slice used is typed above.
    const snarkjs = (await import("snarkjs")) as unknown as SnarkjsZkey;
    const zkeyPath = path.join(tmp, "withdraw.zkey");
    const vkey = await withSingleThreadedCurve(async () => {
      // Entropy given, so snarkjs does not prompt; it mixes in 64 bytes of its own OS randomness too.
      await snarkjs.zKey.contribute(DEFAULT_ARTIFACTS.zkeyPath, zkeyPath, "test ceremony contribution", randomBytes(32).toString("hex"));
      return snarkjs.zKey.exportVerificationKey(zkeyPath);
    });
    const fingerprint = verifyingKeyFingerprint(vkey);
    if (fingerprint === null) throw new Error("snarkjs exported a verification key without its points");
    writeFileSync(path.join(tmp, "verification_key.json"), JSON.stringify(vkey, null, 1) + "\n");
    const meta: KeyMeta = { developmentZkeySha256: devSha, snarkjsVersion: version, zkeySha256: sha256(readFileSync(zkeyPath)), fingerprint };
    writeFileSync(path.join(tmp, "key.json"), JSON.stringify(meta, null, 2) + "\n");
    try {
      rmSync(dir, { recursive: true, force: true }); // a stale or partial key
      renameSync(tmp, dir);
    } catch {
      /* another process put its key there first: use that one */
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const made = readCached(dir, devSha, version);
  if (!made) throw new Error(`could not make the test ceremony key in ${dir}`);
  return { ...made, cached: false };
}

interface CachedProof {
  key: string;
  publicSignals: string[];
  proof: SnarkjsProof;
}

/**
 * A prover for proveWithdrawal({ zkeyPath: key.zkeyPath, prover }) that caches proofs on disk by
 * the witness input and the key's artifacts (witnessInputKey), and uses a hit only after it
 * verifies against this key's vkey for exactly the expected signals.
 */
export function ceremonyProver(key: CeremonyTestKey, cacheDir: string = PROOF_CACHE_DIR): Prover {
  return async (input, wasmPath, zkeyPath) => {
    const id = witnessInputKey(input, wasmPath, zkeyPath);
    const file = path.join(cacheDir, `${id}.json`);
    const expected = PUBLIC_SIGNAL_NAMES.map((name) => input[name]);
    try {
      const hit = JSON.parse(readFileSync(file, "utf8")) as CachedProof;
      if (hit.key === id && hit.publicSignals.join() === expected.join()) {
        const verdict = await verifyWithdrawalProof(encodeProof(fromSnarkjs(hit.proof)), expected, key.vkeyPath);
        if (verdict.ok && verdict.value) return { proof: hit.proof, publicSignals: hit.publicSignals };
      }
    } catch {
      /* no usable entry: prove */
    }
    // As tests/support/proofs.ts's cache: the SDK's default prover, the faster one (docs/benchmarks.md, "CI time").
    const out = await fastProver(input, wasmPath, zkeyPath);
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    const entry: CachedProof = { key: id, publicSignals: out.publicSignals.map(String), proof: out.proof };
    writeFileSync(tmp, JSON.stringify(entry, null, 2) + "\n");
    renameSync(tmp, file);
    return out;
  };
}
