/**
 * A finished ceremony's transcript (ceremony.json, "pwr-ceremony/1") for relay tests: three
 * announced test contributors who really sign their entries (ed25519), a published phase-1
 * file's hash (the relay checks the transcript by the pure checks only: it never sees the
 * .ptau or the zkeys), a beacon, and the final record naming the key and the program. The zkey
 * hashes are made up, which only the ceremony tool's `verify` (with the zkeys) would notice.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { KNOWN_PHASE1_FILES } from "../../src-shared/ceremony/phase1-hashes";
import { CEREMONY_FORMAT, contributionMessage, type CeremonyEntry, type CeremonyTranscript } from "../../src-shared/ceremony/transcript";
import { signEd25519 } from "../../src-shared/crypto/ed25519";

const hex = (seed: string, i: number): string => (seed.repeat(64).slice(0, 63) + (i % 16).toString(16)).slice(0, 64);

export function signedTranscript(opts: { vkeyFingerprint: string; programSha256: string; contributors?: number }): CeremonyTranscript {
  const n = opts.contributors ?? 3;
  const people = Array.from({ length: n }, (_, i) => ({ name: `contributor ${i + 1}`, key: Keypair.generate() }));
  const phase1 = KNOWN_PHASE1_FILES.find((f) => f.power >= 16) ?? KNOWN_PHASE1_FILES.at(-1)!;
  const entries: CeremonyEntry[] = [];
  let previous = hex("a", 0);
  people.forEach((p, i) => {
    const base = { index: i + 1, name: p.name, previousZkeySha256: previous, zkeySha256: hex("b", i + 1), time: `2026-11-0${i + 1}T12:00:00Z` };
    const signature = bs58.encode(signEd25519(contributionMessage(base), p.key.secretKey));
    entries.push({ ...base, publicKey: p.key.publicKey.toBase58(), signature });
    previous = base.zkeySha256;
  });
  return {
    format: CEREMONY_FORMAT,
    circuit: { r1csSha256: hex("c", 0), nConstraints: 20_000, nPublic: 7 },
    phase1: { fileName: phase1.name, blake2b512: phase1.blake2b512, power: phase1.power, known: { source: phase1.source, name: phase1.name }, test: false },
    contributors: people.map((p) => ({ name: p.name, publicKey: p.key.publicKey.toBase58() })),
    beacon: { slot: 1000, notBefore: "2026-11-05T00:00:00Z", iterationsExp: 10, blockhash: Keypair.generate().publicKey.toBase58(), blockSlot: 1001 },
    initialZkeySha256: hex("a", 0),
    entries,
    final: { zkeySha256: hex("d", 0), vkeyFingerprint: opts.vkeyFingerprint, programSha256: opts.programSha256 },
  };
}

/** Writes a key directory as `finalize` lays it out for the relay: verification_key.json and ceremony.json. */
export function writeKeyDir(dir: string, vkey: unknown, transcript: unknown): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "verification_key.json"), JSON.stringify(vkey));
  writeFileSync(path.join(dir, "ceremony.json"), JSON.stringify(transcript, null, 2));
  return path.join(dir, "verification_key.json");
}
