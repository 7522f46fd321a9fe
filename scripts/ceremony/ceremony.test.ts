/**
 * A whole ceremony on a tiny circuit (fixtures/tiny.circom: 3 constraints) and a test
 * phase-1 file of 2^6 generated here, with three announced contributors and a beacon read
 * from a fake RPC; then `verify` on copies of it, each broken in one way, naming the link.
 * The pool program is not built (--no-program): a tiny circuit's key does not fit the pool
 * program's seven public inputs, and tools/sbf's tests build it for a ceremony key.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bs58 from "bs58";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contributionMessage, type CeremonyTranscript } from "../../src-shared/ceremony/transcript";
import { beaconBlock, type SolanaRpc } from "./beacon";
import { verifyingKeyFingerprint } from "../../src-shared/ceremony/fingerprint";
import { programElfHash } from "../../src-shared/ceremony/program-hash";
import { contribute, finalize, init, readTranscript, sha256File, TRANSCRIPT_FILE, verify, zkeyPath, FINAL_ZKEY, PROGRAM_FILE, VKEY_FILE } from "./ceremony";
import { zkeySection } from "./binfile";
import { snarkjs } from "./snarkjs";

const R1CS = join(import.meta.dirname, "fixtures", "tiny.r1cs");
const ROOT = join(import.meta.dirname, "..", "..");
const BEACON_SLOT = 100;
/** The fake chain's first block at or after slot 100: slots 100 and 101 were skipped. */
const BLOCK_SLOT = 102;
const BLOCKHASH = bs58.encode(new Uint8Array(32).fill(0x42));
const ENTROPY_MARKER = "typed-entropy-7f3a9c-must-never-be-stored";

let work: string;
let ptau: string;
let pristine: string;
const said: string[] = [];
const say = (l: string) => said.push(l);

const people = ["alice", "bob", "carol"].map((name, i) => ({ name, pair: nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(i + 11)) }));
const keyFile = (i: number) => join(work, `key-${i}.json`);

/** A fake Solana RPC: finalized up to slot 130, blocks at 102 and 103 only. */
const fakeRpc =
  (finalizedSlot = 130): SolanaRpc =>
  (method, params) => {
    if (method === "getSlot") return Promise.resolve(finalizedSlot);
    if (method === "getBlocks") {
      const [from, to] = params as [number, number];
      return Promise.resolve([BLOCK_SLOT, 103].filter((s) => s >= from && s <= to));
    }
    if (method === "getBlock")
      return Promise.resolve(params[0] === BLOCK_SLOT ? { blockhash: BLOCKHASH } : { blockhash: bs58.encode(new Uint8Array(32).fill(1)) });
    return Promise.reject(new Error(`unexpected ${method}`));
  };

async function testPtau(power: number, name: string): Promise<string> {
  const curve = await snarkjs.curves.getCurveFromName("bn128");
  const p = (s: string) => join(work, `${name}_${s}.ptau`);
  await snarkjs.powersOfTau.newAccumulator(curve, power, p("0"));
  await snarkjs.powersOfTau.contribute(p("0"), p("1"), "test", "test phase-1 entropy");
  await snarkjs.powersOfTau.beacon(p("1"), p("2"), "test beacon", "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20", 10);
  await snarkjs.powersOfTau.preparePhase2(p("2"), p("final"));
  return p("final");
}

/** A copy of the finished ceremony to break one thing in. */
function copy(): string {
  const dir = mkdtempSync(join(work, "case-"));
  cpSync(pristine, dir, { recursive: true });
  return dir;
}
const transcriptOf = (dir: string) => JSON.parse(readFileSync(join(dir, TRANSCRIPT_FILE), "utf8")) as CeremonyTranscript;
const save = (dir: string, t: CeremonyTranscript) => writeFileSync(join(dir, TRANSCRIPT_FILE), JSON.stringify(t, null, 2));
function resign(t: CeremonyTranscript, index: number, signer: (typeof people)[number]): void {
  const e = t.entries[index - 1]!;
  e.signature = bs58.encode(nacl.sign.detached(new TextEncoder().encode(contributionMessage(e)), signer.pair.secretKey));
}
/** Records whatever zkeys/0002.zkey now is as contribution 2, as its signers could: the hashes and both signatures agree. */
async function recordZkey2(dir: string): Promise<void> {
  const t = transcriptOf(dir);
  t.entries[1]!.zkeySha256 = await sha256File(zkeyPath(dir, 2));
  t.entries[2]!.previousZkeySha256 = t.entries[1]!.zkeySha256;
  resign(t, 2, people[1]!);
  resign(t, 3, people[2]!);
  save(dir, t);
}
const heavy = (dir: string) => verify({ dir, r1cs: R1CS, ptau });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "ceremony-test-"));
  ptau = await testPtau(6, "pot6");
  people.forEach((p, i) => writeFileSync(keyFile(i), JSON.stringify(Array.from(p.pair.secretKey))));
  pristine = join(work, "ceremony");
  await init({
    r1cs: R1CS,
    ptau,
    contributors: people.map((p) => ({ name: p.name, publicKey: bs58.encode(p.pair.publicKey) })),
    beacon: { slot: BEACON_SLOT, notBefore: "2030-01-01T00:00:00.000Z" },
    out: pristine,
    testPtau: true,
    say,
  });
  for (const [i, p] of people.entries()) await contribute({ dir: pristine, name: p.name, key: keyFile(i), text: i === 1 ? ENTROPY_MARKER : undefined, say });
  await finalize({ dir: pristine, beacon: { rpc: fakeRpc() }, program: false, say });
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a ceremony with three contributors and a beacon", () => {
  it("records the test phase-1 file, three signed entries and the first block at or after the announced slot", () => {
    const t = readTranscript(pristine);
    expect(t.phase1).toMatchObject({ power: 6, known: null, test: true });
    expect(t.circuit).toMatchObject({ nConstraints: 3, nPublic: 3 });
    expect(t.entries.map((e) => [e.index, e.name])).toEqual([
      [1, "alice"],
      [2, "bob"],
      [3, "carol"],
    ]);
    expect(t.beacon).toMatchObject({ slot: BEACON_SLOT, blockSlot: BLOCK_SLOT, blockhash: BLOCKHASH, iterationsExp: 10 });
    expect(t.final).toBeNull(); // --no-program: no program hash to record
    expect(existsSync(join(pristine, FINAL_ZKEY)) && existsSync(join(pristine, VKEY_FILE))).toBe(true);
  });

  it("passes verify: every zkey follows from the one before against the r1cs and the phase-1 file, the beacon and the vkey", async () => {
    expect(await heavy(pristine)).toBeNull();
    expect(await verify({ dir: pristine, rpc: fakeRpc() })).toBeNull();
  });

  it("never writes or prints the typed entropy", () => {
    const files = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
    for (const f of files(pristine)) expect(readFileSync(f).includes(ENTROPY_MARKER), f).toBe(false);
    expect(said.join("\n")).not.toContain(ENTROPY_MARKER);
  });

  it("refuses a contribution with a key that was not announced, or under another name", async () => {
    const dir = copy();
    rmSync(join(dir, FINAL_ZKEY));
    const t = transcriptOf(dir);
    t.beacon = { ...t.beacon, blockhash: null, blockSlot: null };
    save(dir, t);
    const stranger = join(work, "stranger.json");
    writeFileSync(stranger, JSON.stringify(Array.from(nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(99)).secretKey)));
    await expect(contribute({ dir, name: "mallory", key: stranger })).rejects.toThrow(/was not announced/);
    await expect(contribute({ dir, name: "bobby", key: keyFile(1) })).rejects.toThrow(/announced as "bob"/);
  });

  it("refuses a contribution once the beacon is applied", async () => {
    await expect(contribute({ dir: copy(), name: "alice", key: keyFile(0) })).rejects.toThrow(/closed/);
  });
});

describe("verify names the first bad link", () => {
  it("a replaced contribution: another zkey at index 2, re-signed, that contribution 3 was not built on", async () => {
    const dir = copy();
    const other = join(work, "other-2.zkey");
    await snarkjs.zKey.contribute(zkeyPath(dir, 1), other, "bob", "another key at the same place");
    cpSync(other, zkeyPath(dir, 2));
    await recordZkey2(dir);
    expect(await heavy(dir)).toMatchObject({ index: 3, what: "zkey", message: expect.stringContaining("does not follow") as unknown });
  });

  it("a replaced contribution file the transcript does not record", async () => {
    const dir = copy();
    await snarkjs.zKey.contribute(zkeyPath(dir, 1), zkeyPath(dir, 2), "bob", "another key at the same place");
    expect(await heavy(dir)).toMatchObject({ index: 2, what: "zkey", message: expect.stringContaining("sha256") as unknown });
  });

  it("a zkey whose contribution record is intact but whose proving key was altered, re-hashed and re-signed", async () => {
    const dir = copy();
    const path = zkeyPath(dir, 2);
    const [offset, size] = zkeySection(path, 9); // H: what proofs are built from
    const bytes = readFileSync(path);
    const at = offset + (size >> 1);
    bytes[at] = bytes[at]! ^ 1;
    writeFileSync(path, bytes);
    await recordZkey2(dir);
    expect(await heavy(dir)).toMatchObject({ index: 2, what: "zkey", message: expect.stringContaining("does not follow from the r1cs") as unknown });
  });

  it("a transcript entry signed by someone else", async () => {
    const dir = copy();
    const t = transcriptOf(dir);
    resign(t, 2, people[0]!);
    save(dir, t);
    expect(await heavy(dir)).toMatchObject({ index: 2, what: "signature" });
  });

  it("a zkey hash edited in the transcript", async () => {
    const dir = copy();
    const t = transcriptOf(dir);
    t.entries[0]!.zkeySha256 = "ab".repeat(32);
    save(dir, t);
    expect(await heavy(dir)).toMatchObject({ index: 1, what: "zkey", message: expect.stringContaining("sha256") as unknown });
  });

  it("the wrong beacon: the transcript's blockhash is not the one the final zkey applied", async () => {
    const dir = copy();
    const t = transcriptOf(dir);
    t.beacon.blockhash = bs58.encode(new Uint8Array(32).fill(0x43));
    save(dir, t);
    expect(await heavy(dir)).toMatchObject({ index: 4, what: "beacon" });
  });

  it("the wrong beacon: a final zkey made with another hash than the chain's block, caught against the RPC", async () => {
    const dir = copy();
    const t = transcriptOf(dir);
    t.beacon = { ...t.beacon, blockhash: null, blockSlot: null };
    save(dir, t);
    rmSync(join(dir, FINAL_ZKEY));
    await finalize({ dir, beacon: { hex: "44".repeat(32), blockSlot: BLOCK_SLOT }, program: false });
    expect(await verify({ dir })).toBeNull(); // consistent with itself ...
    expect(await verify({ dir, rpc: fakeRpc() })).toMatchObject({
      index: 4,
      what: "beacon",
      message: expect.stringContaining("first block at or after slot 100") as unknown,
    });
  });

  it("a final record whose key fingerprint or program hash is not the files'", async () => {
    const dir = copy();
    const t = transcriptOf(dir);
    const vkey: unknown = JSON.parse(readFileSync(join(dir, VKEY_FILE), "utf8"));
    const so = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 1, 2, 3]);
    writeFileSync(join(dir, PROGRAM_FILE), so);
    t.final = { zkeySha256: await sha256File(join(dir, FINAL_ZKEY)), vkeyFingerprint: verifyingKeyFingerprint(vkey)!, programSha256: programElfHash(so) };
    save(dir, t);
    expect(await verify({ dir })).toBeNull();
    writeFileSync(join(dir, PROGRAM_FILE), Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 9]));
    expect(await verify({ dir })).toMatchObject({ what: "program" });
    t.final.vkeyFingerprint = "cd".repeat(32);
    save(dir, t);
    expect(await verify({ dir })).toMatchObject({ what: "vkey" });
  });

  it("a test phase-1 file and a missing program hash under the relay's rules (--strict)", async () => {
    expect(await verify({ dir: pristine, strict: { minContributions: 3 } })).toMatchObject({ what: "phase1" });
  });

  it("through the CLI: exit 0 on the ceremony, 1 with the link named on a broken one", () => {
    const dir = copy();
    const cli = (d: string) =>
      spawnSync(process.execPath, ["--import", "tsx", "scripts/ceremony/main.ts", "verify", "--dir", d], { cwd: ROOT, encoding: "utf8" });
    expect(cli(pristine).status).toBe(0);
    const t = transcriptOf(dir);
    resign(t, 3, people[0]!);
    save(dir, t);
    const bad = cli(dir);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("FIRST BAD LINK at contribution 3 (signature)");
  });
});

describe("init", () => {
  const contributors = [{ name: "alice", publicKey: bs58.encode(people[0]!.pair.publicKey) }];
  const beacon = { slot: 1, notBefore: "2030-01-01T00:00:00.000Z" };

  it("refuses a phase-1 file that is not published unless --test-ptau", async () => {
    await expect(init({ r1cs: R1CS, ptau, contributors, beacon, out: join(work, "init-unknown"), testPtau: false })).rejects.toThrow(
      /not a published Powers of Tau file/,
    );
    expect(existsSync(join(work, "init-unknown", TRANSCRIPT_FILE))).toBe(false);
  });

  it("refuses a phase-1 file too small for the circuit, naming the power it needs", async () => {
    const small = await testPtau(2, "pot2");
    await expect(init({ r1cs: R1CS, ptau: small, contributors, beacon, out: join(work, "init-small"), testPtau: true })).rejects.toThrow(/needs 2\^3/);
  });
});

describe("the beacon block", () => {
  it("is the first block at or after the slot: skipped slots move to the next block", async () => {
    expect(await beaconBlock(fakeRpc(), 100)).toEqual({ blockSlot: 102, blockhash: BLOCKHASH });
    expect((await beaconBlock(fakeRpc(), 103)).blockSlot).toBe(103);
  });

  it("is refused before the cluster has finalized the slot", async () => {
    await expect(beaconBlock(fakeRpc(90), 100)).rejects.toThrow(/not finalized yet/);
    await expect(beaconBlock(fakeRpc(101), 100)).rejects.toThrow(/no finalized block yet/);
  });
});
