/**
 * The phase-2 ceremony (docs/ceremony.md): init, contribute, verify, finalize
 * over a ceremony directory:
 *
 *   <dir>/ceremony.json            the transcript (src-shared/ceremony/transcript.ts)
 *   <dir>/zkeys/0000.zkey          zkey new's output; 0001.zkey ... one per contribution
 *   <dir>/withdraw.zkey            after the beacon (finalize)
 *   <dir>/verification_key.json    exported from withdraw.zkey
 *   <dir>/pool.so                  the pool program built for that key
 *
 * main.ts parses the command line; the tests call these functions directly.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, copyFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { checkTranscript, contributionMessage, type CeremonyEntry, type CeremonyTranscript } from "../../src-shared/ceremony/transcript";
import { knownPhase1File, requiredPhase1Power } from "../../src-shared/ceremony/phase1-hashes";
import { verifyingKeyFingerprint } from "../../src-shared/ceremony/fingerprint";
import { programElfHash } from "../../src-shared/ceremony/program-hash";
import { signEd25519 } from "../../src-shared/crypto/ed25519";
import { encodeBase58, parseBase58 } from "../../src-shared/encoding/base58";
import { toHex } from "../../src-shared/encoding/bytes";
import { readPtauPower, readZkeyMpc, type ZkeyMpc } from "./binfile";
import { beaconBlock, type SolanaRpc } from "./beacon";
import { readKeypairFile } from "./keys";
import { collectingLogger, snarkjs } from "./snarkjs";

export const TRANSCRIPT_FILE = "ceremony.json";
export const FINAL_ZKEY = "withdraw.zkey";
export const VKEY_FILE = "verification_key.json";
export const PROGRAM_FILE = "pool.so";
/** 2^10 sha256 iterations: snarkjs's minimum, what tools/zk/setup.mjs uses; the transcript fixes it at init. */
export const DEFAULT_BEACON_ITERATIONS_EXP = 10;

/** Progress lines for the operator; never given secrets (the entropy goes to snarkjs only). */
export type Say = (line: string) => void;

export const zkeyPath = (dir: string, index: number): string => join(dir, "zkeys", `${String(index).padStart(4, "0")}.zkey`);

async function hashFile(path: string, algorithm: "sha256" | "blake2b512"): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
export const sha256File = (path: string): Promise<string> => hashFile(path, "sha256");

export function readTranscript(dir: string): CeremonyTranscript {
  const path = join(dir, TRANSCRIPT_FILE);
  if (!existsSync(path)) throw new Error(`${path} does not exist: run init first, or pass the ceremony's --dir`);
  const parsed = checkTranscript(JSON.parse(readFileSync(path, "utf8")), { requireFinal: false, minContributions: 0, allowTestPhase1: true });
  if (!parsed.ok) throw new Error(`${path}: ${parsed.error.message}`);
  return parsed.value;
}

/** Written whole to a temporary file and renamed: an interrupted write never leaves half a transcript. */
function writeTranscript(dir: string, t: CeremonyTranscript): void {
  const path = join(dir, TRANSCRIPT_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(t, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

// ---------------------------------------------------------------------------------------------
// init

export interface InitOptions {
  r1cs: string;
  ptau: string;
  contributors: { name: string; publicKey: string }[];
  beacon: { slot: number; notBefore: string };
  out: string;
  /** Accept a phase-1 file outside the published table; the transcript records it as a test. */
  testPtau: boolean;
  iterationsExp?: number;
  say?: Say;
}

export async function init(o: InitOptions): Promise<CeremonyTranscript> {
  const say = o.say ?? (() => {});
  if (existsSync(join(o.out, TRANSCRIPT_FILE))) throw new Error(`${join(o.out, TRANSCRIPT_FILE)} exists: a ceremony is already under way in ${o.out}`);
  say(`phase 1: hashing ${o.ptau} (blake2b-512) ...`);
  const blake2b512 = await hashFile(o.ptau, "blake2b512");
  const known = knownPhase1File(blake2b512);
  if (known === null && !o.testPtau) {
    throw new Error(
      `${o.ptau} (blake2b ${blake2b512.slice(0, 16)}…) is not a published Powers of Tau file (src-shared/ceremony/phase1-hashes.ts). ` +
        `Bring the published file for the circuit's size, or pass --test-ptau for a test ceremony (recorded as a test: the relay refuses it)`,
    );
  }
  const { power, prepared } = readPtauPower(o.ptau);
  if (!prepared) throw new Error(`${o.ptau} is not prepared for phase 2 (snarkjs powersoftau prepare phase2): zkey new needs its Lagrange sections`);
  const info = await snarkjs.r1cs.info(o.r1cs);
  const nPublic = info.nPubInputs + info.nOutputs;
  const needed = requiredPhase1Power(info.nConstraints, nPublic);
  if (needed > power) {
    throw new Error(
      `${o.ptau} holds 2^${power} points; the circuit (${info.nConstraints} constraints, ${nPublic} public) needs 2^${needed}: bring powersOfTau28_hez_final_${String(needed).padStart(2, "0")}.ptau or larger`,
    );
  }
  say(known ? `phase 1: ${known.name} (${known.source}, published)` : `phase 1: ${basename(o.ptau)} is NOT published: TEST ceremony`);
  mkdirSync(join(o.out, "zkeys"), { recursive: true });
  const initial = zkeyPath(o.out, 0);
  say(`zkey new: ${info.nConstraints} constraints, 2^${needed} domain ...`);
  const logger = collectingLogger();
  await snarkjs.zKey.newZKey(o.r1cs, o.ptau, initial, logger);
  if (!existsSync(initial)) throw new Error(`zkey new failed: ${logger.problems.join("; ") || "no output"}`);
  const t: CeremonyTranscript = {
    format: "pwr-ceremony/1",
    circuit: { r1csSha256: await sha256File(o.r1cs), nConstraints: info.nConstraints, nPublic },
    phase1: { fileName: basename(o.ptau), blake2b512, power, known: known && { source: known.source, name: known.name }, test: known === null },
    contributors: o.contributors,
    beacon: {
      slot: o.beacon.slot,
      notBefore: o.beacon.notBefore,
      iterationsExp: o.iterationsExp ?? DEFAULT_BEACON_ITERATIONS_EXP,
      blockhash: null,
      blockSlot: null,
    },
    initialZkeySha256: await sha256File(initial),
    entries: [],
    final: null,
  };
  writeTranscript(o.out, t);
  say(`wrote ${join(o.out, TRANSCRIPT_FILE)} and ${initial} (sha256 ${t.initialZkeySha256})`);
  return t;
}

// ---------------------------------------------------------------------------------------------
// contribute

export interface ContributeOptions {
  dir: string;
  name: string;
  /** Path of the contributor's Solana CLI keypair file. */
  key: string;
  /** Extra entropy the contributor typed; mixed with 64 bytes from the OS random source. */
  text?: string;
  /** The entry's time; now when omitted. */
  now?: Date;
  say?: Say;
}

export async function contribute(o: ContributeOptions): Promise<CeremonyEntry> {
  const say = o.say ?? (() => {});
  const t = readTranscript(o.dir);
  if (t.beacon.blockhash !== null) throw new Error("the beacon has been applied: the ceremony is closed to contributions");
  const keypair = readKeypairFile(o.key);
  const announced = t.contributors.find((c) => c.publicKey === keypair.publicKey);
  if (!announced)
    throw new Error(
      `the key ${keypair.publicKey} (${o.key}) was not announced at init; announced: ${t.contributors.map((c) => `${c.name} ${c.publicKey}`).join(", ")}`,
    );
  if (announced.name !== o.name) throw new Error(`the key ${keypair.publicKey} was announced as "${announced.name}", not "${o.name}"`);
  const index = t.entries.length + 1;
  const previous = zkeyPath(o.dir, index - 1);
  const previousSha = t.entries.at(-1)?.zkeySha256 ?? t.initialZkeySha256;
  if (!existsSync(previous)) throw new Error(`${previous} is missing: the latest zkey of the ceremony must be in ${join(o.dir, "zkeys")}`);
  if ((await sha256File(previous)) !== previousSha)
    throw new Error(`${previous} is not the zkey the transcript's last entry records (sha256 ${previousSha}): fetch the latest files from the coordinator`);
  const next = zkeyPath(o.dir, index);
  if (existsSync(next)) throw new Error(`${next} exists: contribution ${index} was made but not recorded; ask the coordinator`);
  say(`contribution ${index} by ${o.name}: applying a random key to ${previous} ...`);
  // 64 bytes from the OS source (snarkjs adds 64 more of its own) and the typed text: the
  // secret lives only in this string and snarkjs's memory; nothing here logs or writes it.
  const entropy = randomBytes(64).toString("hex") + (o.text ?? "");
  const logger = collectingLogger();
  await snarkjs.zKey.contribute(previous, next, o.name, entropy, logger);
  if (!existsSync(next)) throw new Error(`zkey contribute failed: ${logger.problems.join("; ") || "no output"}`);
  const unsigned = {
    index,
    name: o.name,
    publicKey: keypair.publicKey,
    previousZkeySha256: previousSha,
    zkeySha256: await sha256File(next),
    time: (o.now ?? new Date()).toISOString(),
  };
  const entry: CeremonyEntry = { ...unsigned, signature: encodeBase58(signEd25519(contributionMessage(unsigned), keypair.secretKey)) };
  t.entries.push(entry);
  writeTranscript(o.dir, t);
  say(`wrote ${next} (sha256 ${entry.zkeySha256}) and signed entry ${index}; publish the hash, send ${next} and ${TRANSCRIPT_FILE} to the coordinator`);
  return entry;
}

// ---------------------------------------------------------------------------------------------
// verify

export interface VerifyProblem {
  /** The contribution the problem is in (1-based), 0 for the initial zkey; absent for the transcript as a whole. */
  index?: number;
  /** Where: "transcript", "phase1", "r1cs", "zkey", "signature", "beacon", "vkey", "program". */
  what: string;
  message: string;
}

export interface VerifyOptions {
  dir: string;
  /** With both, every zkey is checked with snarkjs against them; without, only the transcript and the hashes. */
  r1cs?: string;
  ptau?: string;
  /** Re-read the beacon block over RPC and compare. */
  rpc?: SolanaRpc;
  /** The relay's rules: published phase 1, the beacon and the final record, at least this many contributors. */
  strict?: { minContributions: number };
  say?: Say;
}

const sameContributions = (before: ZkeyMpc, after: ZkeyMpc, count: number): boolean =>
  before.csHash.equals(after.csHash) &&
  before.contributions.length === count &&
  before.contributions.every((c, i) => c.raw.equals(after.contributions[i]!.raw));

/** What every link of the chain is checked against: the initial zkey, and with `heavy` snarkjs's full check from the phase-1 file. */
interface ChainCheck {
  initial: string;
  ptau: string | undefined;
  heavy: boolean;
}

/** The r1cs and the phase-1 file given to verify are the ones the transcript names. */
async function checkInputs(o: VerifyOptions, t: CeremonyTranscript): Promise<VerifyProblem | null> {
  if ((o.r1cs === undefined) !== (o.ptau === undefined)) throw new Error("verify: --r1cs and --ptau go together");
  if (o.r1cs !== undefined && (await sha256File(o.r1cs)) !== t.circuit.r1csSha256)
    return { what: "r1cs", message: `${o.r1cs} is not the circuit the ceremony was made for (r1csSha256 ${t.circuit.r1csSha256})` };
  if (o.ptau !== undefined && (await hashFile(o.ptau, "blake2b512")) !== t.phase1.blake2b512)
    return { what: "phase1", message: `${o.ptau} is not the phase-1 file the ceremony used (${t.phase1.fileName})` };
  return null;
}

/** The initial zkey: present, the transcript's, no contributions, and (heavy) zkey new of the r1cs and the phase-1 file. */
async function checkInitialZkey(o: VerifyOptions, t: CeremonyTranscript, c: ChainCheck, say: Say): Promise<VerifyProblem | ZkeyMpc> {
  const { initial } = c;
  if (!existsSync(initial)) return { index: 0, what: "zkey", message: `${initial} is missing` };
  if ((await sha256File(initial)) !== t.initialZkeySha256)
    return { index: 0, what: "zkey", message: `the initial zkey's sha256 is not initialZkeySha256 ${t.initialZkeySha256}` };
  const zkey = readZkeyMpc(initial);
  if (zkey.contributions.length !== 0) return { index: 0, what: "zkey", message: "the initial zkey already holds contributions" };
  if (c.heavy) {
    say("initial zkey: checking it is zkey new of the r1cs and the phase-1 file ...");
    const logger = collectingLogger();
    const follows = await snarkjs.zKey.verifyFromR1cs(o.r1cs!, o.ptau!, initial, logger).catch((e: unknown) => {
      logger.problems.push(e instanceof Error ? e.message : String(e));
      return false;
    });
    if (!follows) {
      return { index: 0, what: "zkey", message: `the initial zkey does not follow from the r1cs and the phase-1 file (${logger.problems.join("; ")})` };
    }
  }
  return zkey;
}

/** One link: the file exists, its hash is the transcript's, it extends `before` by one contribution snarkjs accepts. */
async function checkLink(c: ChainCheck, before: ZkeyMpc, index: number, path: string, sha: string, label: string): Promise<VerifyProblem | ZkeyMpc> {
  if (!existsSync(path)) return { index, what: "zkey", message: `${label}: ${path} is missing` };
  if ((await sha256File(path)) !== sha) return { index, what: "zkey", message: `${label}: the sha256 of ${path} is not the transcript's ${sha}` };
  const after = readZkeyMpc(path);
  if (after.contributions.length !== index || !sameContributions(before, after, index - 1)) {
    return { index, what: "zkey", message: `${label}: ${path} does not follow from the zkey before it (its earlier contributions are not that zkey's)` };
  }
  if (c.heavy) {
    const logger = collectingLogger();
    // snarkjs throws on some malformed points instead of returning false: both mean "does not follow".
    const follows = await snarkjs.zKey.verifyFromInit(c.initial, c.ptau!, path, logger).catch((e: unknown) => {
      logger.problems.push(e instanceof Error ? e.message : String(e));
      return false;
    });
    if (!follows) {
      return {
        index,
        what: "zkey",
        message: `${label}: ${path} does not follow from the r1cs and the phase-1 file (${logger.problems.join("; ") || "snarkjs: invalid"})`,
      };
    }
  }
  return after;
}

type EntryProblem = { index?: number; code: string; message: string };

const entryProblem = (p: EntryProblem): VerifyProblem => ({
  index: p.index,
  what: p.code === "signature" ? "signature" : "transcript",
  message: p.message,
});

/**
 * Each contribution's zkey in chain order, up to the first bad transcript entry: the file first, so
 * an edited hash is named as the file not matching it, not only as a broken signature.
 */
async function checkContributions(
  o: VerifyOptions,
  t: CeremonyTranscript,
  c: ChainCheck,
  initial: ZkeyMpc,
  pureEntryProblem: EntryProblem | null,
  say: Say,
): Promise<VerifyProblem | ZkeyMpc> {
  let before = initial;
  for (const [i, e] of t.entries.entries()) {
    const index = i + 1;
    say(`contribution ${index} (${e.name}) ...`);
    const after = await checkLink(c, before, index, zkeyPath(o.dir, index), e.zkeySha256, `contribution ${index} (${e.name})`);
    if (!("csHash" in after)) return after;
    if (pureEntryProblem !== null && pureEntryProblem.index === index) return entryProblem(pureEntryProblem);
    const added = after.contributions.at(-1)!;
    if (added.type !== 0)
      return {
        index,
        what: "zkey",
        message: `contribution ${index} (${e.name}) is a beacon-type contribution: its key is derived from a public hash, so it adds no secret`,
      };
    before = after;
  }
  return before;
}

/** The beacon's block (when an RPC is given), the final zkey as its one beacon-type link, the exported key and the program. */
async function checkBeaconAndFinal(o: VerifyOptions, t: CeremonyTranscript, c: ChainCheck, before: ZkeyMpc, say: Say): Promise<VerifyProblem | null> {
  if (t.beacon.blockhash === null) return null;
  const index = t.entries.length + 1;
  const path = join(o.dir, FINAL_ZKEY);
  say(`beacon: block ${t.beacon.blockSlot} ...`);
  if (o.rpc !== undefined) {
    const block = await beaconBlock(o.rpc, t.beacon.slot);
    if (block.blockhash !== t.beacon.blockhash || block.blockSlot !== t.beacon.blockSlot) {
      return {
        index,
        what: "beacon",
        message: `the first block at or after slot ${t.beacon.slot} is ${block.blockSlot} with blockhash ${block.blockhash}, not the transcript's ${t.beacon.blockSlot} ${t.beacon.blockhash}`,
      };
    }
  }
  if (!existsSync(path)) return { index, what: "beacon", message: `${path} is missing` };
  if (t.final !== null && (await sha256File(path)) !== t.final.zkeySha256)
    return { index, what: "beacon", message: `the sha256 of ${path} is not final.zkeySha256 ${t.final.zkeySha256}` };
  const after = await checkLink(c, before, index, path, await sha256File(path), "the beacon");
  if (!("csHash" in after)) return { ...after, what: "beacon" };
  const b = after.contributions.at(-1)!;
  const expected = parseBase58(t.beacon.blockhash, 32);
  if (b.type !== 1 || b.beaconHash === null || !expected.ok || !b.beaconHash.equals(expected.value) || b.numIterationsExp !== t.beacon.iterationsExp) {
    return {
      index,
      what: "beacon",
      message: `the final zkey's beacon is not blockhash ${t.beacon.blockhash} with 2^${t.beacon.iterationsExp} iterations (it has ${b.type === 1 ? `${b.beaconHash ? encodeBase58(b.beaconHash) : "no hash"}, 2^${b.numIterationsExp}` : "no beacon"})`,
    };
  }
  const vkey = await snarkjs.zKey.exportVerificationKey(path);
  const fingerprint = verifyingKeyFingerprint(vkey);
  const vkeyPath = join(o.dir, VKEY_FILE);
  if (existsSync(vkeyPath) && verifyingKeyFingerprint(JSON.parse(readFileSync(vkeyPath, "utf8"))) !== fingerprint) {
    return { what: "vkey", message: `${vkeyPath} is not the key exported from ${path} (fingerprint ${fingerprint})` };
  }
  if (t.final !== null) {
    if (t.final.vkeyFingerprint !== fingerprint)
      return { what: "vkey", message: `final.vkeyFingerprint ${t.final.vkeyFingerprint} is not the final zkey's key (${fingerprint})` };
    const so = join(o.dir, PROGRAM_FILE);
    if (existsSync(so) && programElfHash(readFileSync(so)) !== t.final.programSha256)
      return { what: "program", message: `${so} does not hash to final.programSha256 ${t.final.programSha256}` };
  }
  say(`verifying key fingerprint ${fingerprint}`);
  return null;
}

/**
 * Checks the whole ceremony and names the FIRST bad link: the transcript's own checks and
 * the files taken in chain order (initial zkey, each contribution, the beacon, the vkey, the
 * program), each zkey checked with snarkjs against the r1cs and the phase-1 file. Returns
 * null when everything holds.
 */
export async function verify(o: VerifyOptions): Promise<VerifyProblem | null> {
  const say = o.say ?? (() => {});
  const raw: unknown = JSON.parse(readFileSync(join(o.dir, TRANSCRIPT_FILE), "utf8"));
  const pure = checkTranscript(raw, {
    requireFinal: o.strict !== undefined,
    minContributions: o.strict?.minContributions ?? 0,
    allowTestPhase1: o.strict === undefined,
  });
  if (!pure.ok && pure.error.index === undefined && ["format", "phase1-unknown", "phase1-test", "contributors"].includes(pure.error.code)) {
    return { what: pure.error.code.startsWith("phase1") ? "phase1" : "transcript", message: pure.error.message };
  }
  // The pure checks stop at the first bad entry; the files are checked in order up to it, so
  // that a zkey that does not follow before it is named first.
  const pureEntryProblem = !pure.ok && pure.error.index !== undefined ? pure.error : null;
  const t = raw as CeremonyTranscript;
  if (t.phase1.test) say("WARNING: the phase-1 file is a TEST file (init --test-ptau): this key is for tests only");

  const c: ChainCheck = { initial: zkeyPath(o.dir, 0), ptau: o.ptau, heavy: o.r1cs !== undefined && o.ptau !== undefined };
  const inputs = await checkInputs(o, t);
  if (inputs) return inputs;
  const initial = await checkInitialZkey(o, t, c, say);
  if (!("csHash" in initial)) return initial;
  const last = await checkContributions(o, t, c, initial, pureEntryProblem, say);
  if (!("csHash" in last)) return last;
  if (pureEntryProblem !== null) return entryProblem(pureEntryProblem);
  if (!pure.ok) return { what: pure.error.code.startsWith("beacon") ? "beacon" : "transcript", message: pure.error.message };
  return checkBeaconAndFinal(o, t, c, last, say);
}

// ---------------------------------------------------------------------------------------------
// finalize

export interface FinalizeOptions {
  dir: string;
  /** Where the beacon comes from: the chain, or a given 32-byte hash (tests only). */
  beacon: { rpc: SolanaRpc } | { hex: string; blockSlot?: number };
  /** Build the pool program for the key (tools/sbf); false skips it and leaves `final` null. */
  program: boolean;
  /** Also copy verification_key.json, withdraw.zkey, pool.so and ceremony.json here. */
  out?: string;
  say?: Say;
}

export async function finalize(o: FinalizeOptions): Promise<CeremonyTranscript> {
  const say = o.say ?? (() => {});
  const t = readTranscript(o.dir);
  if (t.final !== null) throw new Error(`the ceremony in ${o.dir} is already final`);
  if (t.entries.length === 0) throw new Error("no contribution has been made: a beacon alone adds no secret");
  const finalPath = join(o.dir, FINAL_ZKEY);
  if (t.beacon.blockhash === null) {
    const block =
      "rpc" in o.beacon
        ? await beaconBlock(o.beacon.rpc, t.beacon.slot)
        : { blockSlot: o.beacon.blockSlot ?? t.beacon.slot, blockhash: encodeBase58(hexBytes32(o.beacon.hex)) };
    if (!("rpc" in o.beacon)) say("WARNING: the beacon was given by hand (--beacon-hex): anyone can verify it only against the chain with verify --rpc");
    const last = zkeyPath(o.dir, t.entries.length);
    if ((await sha256File(last)) !== t.entries.at(-1)!.zkeySha256) throw new Error(`${last} is not the zkey of the last entry`);
    const hashBytes = parseBase58(block.blockhash, 32);
    if (!hashBytes.ok) throw new Error(`the blockhash ${block.blockhash} is not 32 bytes of base58`);
    say(`beacon: block ${block.blockSlot} (first at or after slot ${t.beacon.slot}), blockhash ${block.blockhash}, 2^${t.beacon.iterationsExp} iterations ...`);
    const logger = collectingLogger();
    const applied = await snarkjs.zKey.beacon(
      last,
      finalPath,
      `beacon: solana block ${block.blockSlot} ${block.blockhash}`,
      toHex(hashBytes.value),
      t.beacon.iterationsExp,
      logger,
    );
    if (applied === false || !existsSync(finalPath)) throw new Error(`zkey beacon failed: ${logger.problems.join("; ") || "no output"}`);
    t.beacon = { ...t.beacon, blockhash: block.blockhash, blockSlot: block.blockSlot };
    writeTranscript(o.dir, t);
  } else {
    say(`beacon already applied (block ${t.beacon.blockSlot}); exporting and building`);
  }
  const vkey = await snarkjs.zKey.exportVerificationKey(finalPath);
  const vkeyPath = join(o.dir, VKEY_FILE);
  writeFileSync(vkeyPath, `${JSON.stringify(vkey, null, 1)}\n`);
  const fingerprint = verifyingKeyFingerprint(vkey);
  if (fingerprint === null) throw new Error("the exported verifying key has no fingerprint");
  say(`wrote ${vkeyPath}: fingerprint ${fingerprint}`);
  if (!o.program) {
    say("program not built (--no-program): the transcript stays without `final` until finalize runs again with the build");
  } else {
    const so = await buildProgram(vkeyPath);
    writeFileSync(join(o.dir, PROGRAM_FILE), so);
    t.final = { zkeySha256: await sha256File(finalPath), vkeyFingerprint: fingerprint, programSha256: programElfHash(so) };
    writeTranscript(o.dir, t);
    say(`wrote ${join(o.dir, PROGRAM_FILE)}: programSha256 ${t.final.programSha256}`);
  }
  if (o.out !== undefined && resolve(o.out) !== resolve(o.dir)) {
    mkdirSync(o.out, { recursive: true });
    for (const f of [FINAL_ZKEY, VKEY_FILE, PROGRAM_FILE, TRANSCRIPT_FILE]) if (existsSync(join(o.dir, f))) copyFileSync(join(o.dir, f), join(o.out, f));
    say(`copied the artifacts to ${o.out}`);
  }
  return t;
}

function hexBytes32(hex: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error("--beacon-hex must be 32 bytes of hex (a blockhash's size)");
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** The pool program for the key, from tools/sbf (PROGRAM-FOR-KEY's buildPoolForKey). */
async function buildProgram(vkeyPath: string): Promise<Uint8Array> {
  const { buildPoolForKey } = await import("../../tools/sbf/build");
  const built = buildPoolForKey({ vkey: { path: vkeyPath } });
  if (built.programElfHash !== programElfHash(built.so)) throw new Error("tools/sbf and src-shared disagree on the program hash");
  return built.so;
}
