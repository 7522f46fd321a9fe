import nacl from "tweetnacl";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import {
  checkTranscript,
  contributionMessage,
  transcriptSummary,
  type CeremonyEntry,
  type CeremonyTranscript,
  type CheckTranscriptOptions,
} from "./transcript";

const HERMEZ_14 = "eeefbcf7c3803b523c94112023c7ff89558f9b8e0cf5d6cdcba3ade60f168af4a181c9c21774b94fbae6c90411995f7d854d02ebd93fb66043dbb06f17a831c1";
const hash = (n: number) => n.toString(16).padStart(2, "0").repeat(32);
const people = ["alice", "bob", "carol"].map((name, i) => ({ name, keys: nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(i + 1)) }));
const key = (p: (typeof people)[number]) => bs58.encode(p.keys.publicKey);

function entry(index: number, who: (typeof people)[number], signer = who): CeremonyEntry {
  const e = {
    index,
    name: who.name,
    publicKey: key(who),
    previousZkeySha256: hash(index - 1),
    zkeySha256: hash(index),
    time: `2025-01-0${index}T10:00:00.000Z`,
  };
  return { ...e, signature: bs58.encode(nacl.sign.detached(new TextEncoder().encode(contributionMessage(e)), signer.keys.secretKey)) };
}

function transcript(): CeremonyTranscript {
  return {
    format: "pwr-ceremony/1",
    circuit: { r1csSha256: hash(0xaa), nConstraints: 9490, nPublic: 7 },
    phase1: {
      fileName: "powersOfTau28_hez_final_14.ptau",
      blake2b512: HERMEZ_14,
      power: 14,
      known: { source: "hermez", name: "powersOfTau28_hez_final_14.ptau" },
      test: false,
    },
    contributors: people.map((p) => ({ name: p.name, publicKey: key(p) })),
    beacon: { slot: 1000, notBefore: "2025-01-05T00:00:00.000Z", iterationsExp: 10, blockhash: bs58.encode(new Uint8Array(32).fill(9)), blockSlot: 1002 },
    initialZkeySha256: hash(0),
    entries: people.map((p, i) => entry(i + 1, p)),
    final: { zkeySha256: hash(0xf0), vkeyFingerprint: hash(0xf1), programSha256: hash(0xf2) },
  };
}

const relay: CheckTranscriptOptions = { requireFinal: true, minContributions: 3, allowTestPhase1: false };
const problem = (t: unknown, o = relay) => {
  const r = checkTranscript(t, o);
  return r.ok ? null : r.error;
};

describe("checkTranscript", () => {
  it("accepts a finished ceremony on a published phase-1 file with three signed contributions and the beacon", () => {
    expect(problem(transcript())).toBeNull();
  });

  it("refuses a phase-1 file that is not in the published table unless test files are allowed", () => {
    const t = transcript();
    t.phase1 = { ...t.phase1, fileName: "local.ptau", blake2b512: "ab".repeat(64), known: null, test: false };
    expect(problem(t)).toMatchObject({ code: "phase1-unknown" });
    expect(problem(t, { ...relay, allowTestPhase1: true })).toBeNull();
  });

  it("refuses a phase-1 file marked as a test at init unless test files are allowed", () => {
    const t = transcript();
    t.phase1 = { ...t.phase1, fileName: "local.ptau", blake2b512: "ab".repeat(64), known: null, test: true };
    expect(problem(t)).toMatchObject({ code: "phase1-test" });
    expect(problem(t, { ...relay, allowTestPhase1: true })).toBeNull();
  });

  it("refuses a phase-1 record whose name does not go with its published hash", () => {
    const t = transcript();
    t.phase1.known = { source: "hermez", name: "powersOfTau28_hez_final_20.ptau" };
    expect(problem(t)).toMatchObject({ code: "phase1-unknown" });
  });

  it("names the entry whose previous hash is not the zkey before it", () => {
    const t = transcript();
    t.entries[1] = { ...t.entries[1]!, previousZkeySha256: hash(0x55) };
    expect(problem(t)).toMatchObject({ code: "chain", index: 2 });
  });

  it("names the first entry when it does not start from the initial zkey", () => {
    const t = transcript();
    t.initialZkeySha256 = hash(0x66);
    expect(problem(t)).toMatchObject({ code: "chain", index: 1 });
  });

  it("names an entry whose zkey hash was edited after signing: the signature breaks before the next link does", () => {
    const t = transcript();
    t.entries[2] = { ...t.entries[2]!, zkeySha256: hash(0x77) };
    expect(problem(t)).toMatchObject({ code: "signature", index: 3 });
  });

  it("names an entry signed by someone else than the announced key it names", () => {
    const t = transcript();
    t.entries[1] = entry(2, people[1]!, people[0]!);
    expect(problem(t)).toMatchObject({ code: "signature", index: 2 });
  });

  it("names an entry whose key was not announced at init", () => {
    const t = transcript();
    const stranger = { name: "mallory", keys: nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(66)) };
    t.entries[0] = entry(1, stranger);
    expect(problem(t)).toMatchObject({ code: "not-announced", index: 1 });
  });

  it("names an entry whose name is not the one announced with its key", () => {
    const t = transcript();
    const impostor = { ...people[0]!, name: "alicia" };
    t.entries[0] = entry(1, impostor);
    expect(problem(t)).toMatchObject({ code: "name-mismatch", index: 1 });
  });

  it("names entries out of order", () => {
    const t = transcript();
    t.entries[1] = { ...t.entries[1]!, index: 3 };
    expect(problem(t)).toMatchObject({ code: "entry-index", index: 2 });
  });

  it("counts one key contributing three times as one contributor", () => {
    const t = transcript();
    t.entries = [1, 2, 3].map((i) => entry(i, people[0]!));
    expect(problem(t)).toMatchObject({ code: "too-few-contributions" });
    expect(problem(t, { ...relay, minContributions: 1 })).toBeNull();
  });

  it("requires the beacon and the final record only when asked to", () => {
    const t = transcript();
    t.final = null;
    t.beacon = { ...t.beacon, blockhash: null, blockSlot: null };
    expect(problem(t)).toMatchObject({ code: "beacon-missing" });
    expect(problem(t, { ...relay, requireFinal: false })).toBeNull();
    t.beacon = transcript().beacon;
    expect(problem(t)).toMatchObject({ code: "final-missing" });
  });

  it("refuses a beacon block before the announced slot", () => {
    const t = transcript();
    t.beacon.blockSlot = 999;
    expect(problem(t)).toMatchObject({ code: "beacon-missing" });
  });

  it("refuses a malformed transcript, naming the field", () => {
    expect(problem({ format: "pwr-ceremony/2" })).toMatchObject({ code: "format" });
    const t = transcript() as unknown as { entries: Array<Record<string, unknown>> };
    t.entries[0]!.zkeySha256 = "ABC";
    expect(problem(t)).toMatchObject({ code: "format", message: expect.stringContaining("entries[0].zkeySha256") as unknown });
    const u = transcript();
    u.beacon.iterationsExp = 9;
    expect(problem(u)).toMatchObject({ code: "format", message: expect.stringContaining("iterationsExp") as unknown });
  });

  it("takes the caller's ed25519 check", () => {
    expect(problem(transcript(), { ...relay, verify: () => false })).toMatchObject({ code: "signature", index: 1 });
  });

  it("summarises the transcript for the console", () => {
    expect(transcriptSummary(transcript())).toMatchObject({
      contributions: 3,
      contributors: ["alice", "bob", "carol"],
      phase1: "powersOfTau28_hez_final_14.ptau",
      beaconBlockSlot: 1002,
    });
  });
});
