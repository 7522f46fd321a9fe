/**
 * The phase-2 ceremony transcript (`ceremony.json`, format "pwr-ceremony/1", docs/ceremony.md) and
 * its pure checks. The ceremony tool writes it (scripts/ceremony), the relay reads it beside
 * its vkey and refuses to start unless it verifies, the console shows its summary. What can
 * be checked without the zkeys is checked here: the hash chain, the signatures, the
 * announced contributors, the phase-1 file, the beacon and the final record. That each zkey
 * really follows from the previous one needs the zkeys, the r1cs and the ptau: the tool's
 * `verify` does that with snarkjs on top of these checks.
 */
import { parseBase58, parsePublicKey } from "../encoding/base58";
import { verifyEd25519, type Ed25519Verify } from "../crypto/ed25519";
import { err, ok, type Result } from "../result";
import { knownPhase1File, type Phase1Source } from "./phase1-hashes";

export const CEREMONY_FORMAT = "pwr-ceremony/1";
/** snarkjs's beacon refuses fewer than 2^10 hash iterations (and more than 2^63). */
export const MIN_BEACON_ITERATIONS_EXP = 10;
export const MAX_BEACON_ITERATIONS_EXP = 63;

export interface CeremonyContributor {
  name: string;
  /** base58 ed25519 public key. */
  publicKey: string;
}

export interface CeremonyEntry {
  /** 1 for the first contribution, in order. */
  index: number;
  name: string;
  publicKey: string;
  previousZkeySha256: string;
  zkeySha256: string;
  /** ISO 8601. */
  time: string;
  /** base58 ed25519 signature over {@link contributionMessage}. */
  signature: string;
}

export interface CeremonyTranscript {
  format: typeof CEREMONY_FORMAT;
  circuit: { r1csSha256: string; nConstraints: number; nPublic: number };
  phase1: {
    fileName: string;
    /** blake2b-512 of the whole .ptau file, as the published lists give it. */
    blake2b512: string;
    power: number;
    known: { source: Phase1Source; name: string } | null;
    /** Set by `init --test-ptau`: a file generated locally, good for tests only. */
    test: boolean;
  };
  /** Announced at `init`, in order; only these keys may sign entries. */
  contributors: CeremonyContributor[];
  beacon: {
    /** The announced slot: the beacon is the first block at or after it. */
    slot: number;
    /** ISO time the slot was expected at when announced (information; the slot decides). */
    notBefore: string;
    iterationsExp: number;
    /** Filled by `beacon`/`finalize`. */
    blockhash: string | null;
    blockSlot: number | null;
  };
  /** sha256 of `zkey new`'s output (no contribution yet). */
  initialZkeySha256: string;
  entries: CeremonyEntry[];
  final: null | {
    /** sha256 of the zkey after the beacon. */
    zkeySha256: string;
    /** verifyingKeyFingerprint (./fingerprint.ts) of the exported vkey. */
    vkeyFingerprint: string;
    /** programElfHash (./program-hash.ts) of the pool program built for the vkey. */
    programSha256: string;
  };
}

/** What is wrong, and where: `index` is the entry (1-based) when the problem is in one. */
export interface TranscriptProblem {
  code:
    | "format"
    | "phase1-unknown"
    | "phase1-test"
    | "contributors"
    | "entry-index"
    | "chain"
    | "not-announced"
    | "name-mismatch"
    | "signature"
    | "too-few-contributions"
    | "beacon-missing"
    | "final-missing";
  index?: number;
  message: string;
}

export interface CheckTranscriptOptions {
  /** The beacon's blockhash and the final record must be there (the relay: true). */
  requireFinal: boolean;
  /** Distinct announced contributors who signed an entry; one key contributing twice counts once. */
  minContributions: number;
  /** Accept a phase-1 file that is not in the published table, or one `init` marked as a test. */
  allowTestPhase1: boolean;
  /** The ed25519 check; src-shared's strict one when omitted (the relay may pass its native one). */
  verify?: Ed25519Verify;
}

/** The UTF-8 text an entry's signature covers; the index and both hashes bind it to its place in the chain. */
export function contributionMessage(e: Pick<CeremonyEntry, "index" | "previousZkeySha256" | "zkeySha256" | "name" | "time">): string {
  return `${CEREMONY_FORMAT} contribution ${e.index} ${e.previousZkeySha256} ${e.zkeySha256} ${e.name} ${e.time}`;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const BLAKE2B_HEX = /^[0-9a-f]{128}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

type Shape = Result<true, string>;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
/** A contributor's name: printable, no surrounding spaces (it sits between spaces in the signed message). */
// eslint-disable-next-line no-control-regex -- the point is to refuse control characters
const isName = (v: unknown): v is string => typeof v === "string" && /^[^\u0000-\u001f\u007f]{1,100}$/.test(v) && v.trim() === v;

function field(o: Record<string, unknown>, key: string, test: (v: unknown) => boolean, what: string, at: string): Shape {
  return test(o[key]) ? ok(true) : err(`${at}${key} is not ${what}`);
}

function checkShape(t: unknown): Shape {
  if (!isObject(t)) return err("the transcript is not a JSON object");
  if (t.format !== CEREMONY_FORMAT) return err(`format is not "${CEREMONY_FORMAT}"`);
  const checks: Array<() => Shape> = [];
  const c = t.circuit;
  if (!isObject(c)) return err("circuit is not an object");
  checks.push(
    () => field(c, "r1csSha256", (v) => typeof v === "string" && SHA256_HEX.test(v), "a sha256 hex", "circuit."),
    () => field(c, "nConstraints", isCount, "a count", "circuit."),
    () => field(c, "nPublic", isCount, "a count", "circuit."),
  );
  const p = t.phase1;
  if (!isObject(p)) return err("phase1 is not an object");
  checks.push(
    () => field(p, "fileName", (v) => typeof v === "string" && v.length > 0, "a file name", "phase1."),
    () => field(p, "blake2b512", (v) => typeof v === "string" && BLAKE2B_HEX.test(v), "a blake2b-512 hex", "phase1."),
    () => field(p, "power", (v) => isCount(v) && v >= 1 && v <= 28, "a power of 1..28", "phase1."),
    () => field(p, "test", (v) => typeof v === "boolean", "a boolean", "phase1."),
    () =>
      field(
        p,
        "known",
        (v) => v === null || (isObject(v) && (v.source === "hermez" || v.source === "ppot") && typeof v.name === "string"),
        'null or { source: "hermez"|"ppot", name }',
        "phase1.",
      ),
  );
  if (!Array.isArray(t.contributors)) return err("contributors is not an array");
  t.contributors.forEach((x: unknown, i) =>
    checks.push(() =>
      isObject(x) && isName(x.name) && parsePublicKey(x.publicKey).ok ? ok(true) : err(`contributors[${i}] is not { name, publicKey (base58 ed25519) }`),
    ),
  );
  const b = t.beacon;
  if (!isObject(b)) return err("beacon is not an object");
  checks.push(
    () => field(b, "slot", isCount, "a slot", "beacon."),
    () => field(b, "notBefore", (v) => typeof v === "string" && ISO_TIME.test(v), "an ISO time", "beacon."),
    () =>
      field(
        b,
        "iterationsExp",
        (v) => isCount(v) && v >= MIN_BEACON_ITERATIONS_EXP && v <= MAX_BEACON_ITERATIONS_EXP,
        `an exponent of ${MIN_BEACON_ITERATIONS_EXP}..${MAX_BEACON_ITERATIONS_EXP}`,
        "beacon.",
      ),
    () => field(b, "blockhash", (v) => v === null || parseBase58(v, 32).ok, "null or a base58 blockhash", "beacon."),
    () => field(b, "blockSlot", (v) => v === null || isCount(v), "null or a slot", "beacon."),
    () => field(t, "initialZkeySha256", (v) => typeof v === "string" && SHA256_HEX.test(v), "a sha256 hex", ""),
  );
  if (!Array.isArray(t.entries)) return err("entries is not an array");
  t.entries.forEach((x: unknown, i) =>
    checks.push(() => {
      const at = `entries[${i}].`;
      if (!isObject(x)) return err(`entries[${i}] is not an object`);
      const hex = (v: unknown) => typeof v === "string" && SHA256_HEX.test(v);
      for (const r of [
        field(x, "index", isCount, "a count", at),
        field(x, "name", isName, "a name", at),
        field(x, "publicKey", (v) => parsePublicKey(v).ok, "a base58 ed25519 key", at),
        field(x, "previousZkeySha256", hex, "a sha256 hex", at),
        field(x, "zkeySha256", hex, "a sha256 hex", at),
        field(x, "time", (v) => typeof v === "string" && ISO_TIME.test(v), "an ISO time", at),
        field(x, "signature", (v) => parseBase58(v, 64).ok, "a base58 signature", at),
      ])
        if (!r.ok) return r;
      return ok(true);
    }),
  );
  const f = t.final;
  if (f !== null) {
    if (!isObject(f)) return err("final is not null or an object");
    for (const key of ["zkeySha256", "vkeyFingerprint", "programSha256"])
      checks.push(() => field(f, key, (v) => typeof v === "string" && SHA256_HEX.test(v), "a sha256 hex", "final."));
  }
  for (const check of checks) {
    const r = check();
    if (!r.ok) return r;
  }
  return ok(true);
}

/** The transcript's shape alone (types, hex and base58 forms); checkTranscript does this first. */
export function parseTranscript(value: unknown): Result<CeremonyTranscript, TranscriptProblem> {
  const shape = checkShape(value);
  return shape.ok ? ok(value as CeremonyTranscript) : err({ code: "format", message: shape.error });
}

/**
 * Every check that needs no zkey, in an order that names the FIRST bad link: the format,
 * the phase-1 file, the announced list, then each entry in turn (its index, its place in
 * the hash chain, its signer, its signature), then the count, the beacon and the final
 * record. Returns the transcript, typed, when all hold.
 */
export function checkTranscript(value: unknown, options: CheckTranscriptOptions): Result<CeremonyTranscript, TranscriptProblem> {
  const parsed = parseTranscript(value);
  if (!parsed.ok) return parsed;
  const t = parsed.value;
  const verify = options.verify ?? verifyEd25519;
  const fail = (code: TranscriptProblem["code"], message: string, index?: number) => err(index === undefined ? { code, message } : { code, index, message });

  const known = knownPhase1File(t.phase1.blake2b512);
  if (!options.allowTestPhase1) {
    if (t.phase1.test) return fail("phase1-test", `the phase-1 file ${t.phase1.fileName} was marked as a test file at init (--test-ptau)`);
    if (known === null)
      return fail(
        "phase1-unknown",
        `the phase-1 file ${t.phase1.fileName} (blake2b ${t.phase1.blake2b512.slice(0, 16)}…) is not a published Powers of Tau file`,
      );
  }
  if (known !== null && (t.phase1.known === null || t.phase1.known.name !== known.name || t.phase1.power !== known.power)) {
    return fail(
      "phase1-unknown",
      `phase1 names ${t.phase1.known?.name ?? "no published file"} (power ${t.phase1.power}) but its hash is ${known.name}'s (power ${known.power})`,
    );
  }
  if (known === null && t.phase1.known !== null) return fail("phase1-unknown", `phase1 claims to be ${t.phase1.known.name} but its hash is not that file's`);

  const announced = new Map<string, string>();
  for (const c of t.contributors) {
    if (announced.has(c.publicKey)) return fail("contributors", `the key ${c.publicKey} is announced twice`);
    announced.set(c.publicKey, c.name);
  }

  let previous = t.initialZkeySha256;
  for (const [i, e] of t.entries.entries()) {
    const index = i + 1;
    if (e.index !== index) return fail("entry-index", `entry ${index} says it is contribution ${e.index}`, index);
    if (e.previousZkeySha256 !== previous) {
      const of = index === 1 ? "the initial zkey" : `contribution ${index - 1}'s zkey`;
      return fail("chain", `contribution ${index} starts from zkey ${e.previousZkeySha256.slice(0, 16)}…, not ${of} (${previous.slice(0, 16)}…)`, index);
    }
    const name = announced.get(e.publicKey);
    if (name === undefined) return fail("not-announced", `contribution ${index} is signed by ${e.publicKey}, which was not announced at init`, index);
    if (name !== e.name) return fail("name-mismatch", `contribution ${index} names "${e.name}" but its key was announced as "${name}"`, index);
    const signature = parseBase58(e.signature, 64);
    const key = parsePublicKey(e.publicKey);
    if (!signature.ok || !key.ok || !verify(contributionMessage(e), signature.value, key.value)) {
      return fail("signature", `contribution ${index}'s signature does not verify for ${e.name} (${e.publicKey})`, index);
    }
    previous = e.zkeySha256;
  }

  const signers = new Set(t.entries.map((e) => e.publicKey)).size;
  if (signers < options.minContributions) {
    return fail("too-few-contributions", `${signers} contributor(s) signed, at least ${options.minContributions} are required`);
  }
  const b = t.beacon;
  if ((b.blockhash === null) !== (b.blockSlot === null))
    return fail("beacon-missing", "the beacon has a blockhash without its slot, or a slot without its blockhash");
  if (b.blockSlot !== null && b.blockSlot < b.slot)
    return fail("beacon-missing", `the beacon block's slot ${b.blockSlot} is before the announced slot ${b.slot}`);
  if (t.final !== null && b.blockhash === null) return fail("beacon-missing", "the transcript is final but has no beacon blockhash");
  if (options.requireFinal) {
    if (b.blockhash === null) return fail("beacon-missing", `no beacon: the blockhash of the first block at or after slot ${b.slot} was not applied`);
    if (t.final === null) return fail("final-missing", "the ceremony was not finalized (no final zkey, vkey fingerprint or program hash)");
  }
  return ok(t);
}

/** What the console and the start-up log show of a transcript. */
export interface TranscriptSummary {
  contributions: number;
  contributors: string[];
  phase1: string;
  beaconSlot: number;
  beaconBlockSlot: number | null;
  beaconBlockhash: string | null;
  vkeyFingerprint: string | null;
  programSha256: string | null;
}

export function transcriptSummary(t: CeremonyTranscript): TranscriptSummary {
  return {
    contributions: t.entries.length,
    contributors: t.entries.map((e) => e.name),
    phase1: t.phase1.known?.name ?? (t.phase1.test ? `${t.phase1.fileName} (test)` : `${t.phase1.fileName} (unknown)`),
    beaconSlot: t.beacon.slot,
    beaconBlockSlot: t.beacon.blockSlot,
    beaconBlockhash: t.beacon.blockhash,
    vkeyFingerprint: t.final?.vkeyFingerprint ?? null,
    programSha256: t.final?.programSha256 ?? null,
  };
}
