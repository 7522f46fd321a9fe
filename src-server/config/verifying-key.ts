import { readFileSync } from "node:fs";
import path from "node:path";
import { verifyingKeyFingerprint } from "../../src-shared/ceremony/fingerprint";
import { programElfHash } from "../../src-shared/ceremony/program-hash";
import { checkTranscript, transcriptSummary, type TranscriptSummary } from "../../src-shared/ceremony/transcript";
import { NETWORKS, type Network } from "../../src-shared/networks";
import { repoPath } from "../repo-path";
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

/** Moved to src-shared (pure) for the ceremony tool and the console; re-exported for the relay's callers. */
export { verifyingKeyFingerprint };

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

/** The committed development build of the pool program (the relay ships beside the repository's programs/). */
export const DEVELOPMENT_PROGRAM_PATH = repoPath("programs", "pool", "pool.so");

/** The transcript the ceremony's `finalize` writes beside the vkey (docs/ceremony.md). */
export const CEREMONY_FILE = "ceremony.json";

/**
 * The program the relay's key belongs to, known before the chain is asked: the
 * development key's is the committed build, hashed at start from programs/pool/pool.so (never
 * a stale constant); a ceremony key's is the program hash its verified transcript records.
 */
export type KeyExpectation =
  | { kind: "development"; fingerprint: string; programPath: string; programHash: string }
  | { kind: "ceremony"; fingerprint: string; transcriptPath: string; programHash: string; ceremony: TranscriptSummary };

/**
 * What the deployed program must hash to, for the solana networks (null when none is
 * enabled: the sandbox verifies with the key itself and has no program). Throws a
 * ConfigError (exit 2) when the key is not the development key and the transcript beside
 * it is missing, does not verify (a published phase 1, not a test run, at least
 * verifier.minContributions contributors, the beacon, the final record) or records another
 * key; or when a network runs the development key and its committed build cannot be read.
 */
export function keyExpectation(config: RelayConfig, opts: { developmentProgramPath?: string } = {}): KeyExpectation | null {
  const solana = NETWORKS.filter((n) => config.networks[n].enabled && config.networks[n].backend === "solana");
  if (solana.length === 0) return null;
  const vkeyPath = config.verifier.vkeyPath;
  let fingerprint: string | null;
  try {
    fingerprint = verifyingKeyFingerprint(JSON.parse(readFileSync(vkeyPath, "utf8")));
  } catch (e) {
    throw new ConfigError("verifier.vkeyPath", `${vkeyPath} cannot be read as a verifying key (${(e as Error).message})`);
  }
  if (fingerprint === null) throw new ConfigError("verifier.vkeyPath", `${vkeyPath} is not a snarkjs verifying key`);
  if (fingerprint === DEVELOPMENT_VKEY_FINGERPRINT) {
    const programPath = opts.developmentProgramPath ?? DEVELOPMENT_PROGRAM_PATH;
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(programPath);
    } catch (e) {
      throw new ConfigError(
        "verifier.vkeyPath",
        `is the development key, and the committed development build ${programPath} it belongs to cannot be read (${(e as Error).message}): ` +
          `without it the deployed program cannot be checked`,
      );
    }
    return { kind: "development", fingerprint, programPath, programHash: programElfHash(bytes) };
  }
  const transcriptPath = path.join(path.dirname(vkeyPath), CEREMONY_FILE);
  const refuse = (problem: string): never => {
    throw new ConfigError(
      "verifier.vkeyPath",
      `the verifying key ${vkeyPath} (fingerprint ${fingerprint}) is not the development key, and ${problem}. ` +
        `A solana network needs the key of a finished ceremony with its ${CEREMONY_FILE} beside it (docs/ceremony.md)`,
    );
  };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(transcriptPath, "utf8"));
  } catch (e) {
    return refuse(`its transcript ${transcriptPath} cannot be read (${(e as Error).message.split("\n")[0]})`);
  }
  const checked = checkTranscript(raw, { requireFinal: true, minContributions: config.verifier.minContributions, allowTestPhase1: false });
  if (!checked.ok) return refuse(`its transcript ${transcriptPath} does not verify: ${checked.error.message}`);
  const final = checked.value.final!;
  if (final.vkeyFingerprint !== fingerprint) return refuse(`its transcript ${transcriptPath} records another key (fingerprint ${final.vkeyFingerprint})`);
  return { kind: "ceremony", fingerprint, transcriptPath, programHash: final.programSha256, ceremony: transcriptSummary(checked.value) };
}
