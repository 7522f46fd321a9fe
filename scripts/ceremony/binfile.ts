/**
 * Just enough of snarkjs's binary file layout (@iden3/binfileutils: a 4-byte magic, a u32
 * version, a u32 section count, then sections of u32 type + u64 size + data, little-endian)
 * to read a zkey's MPC parameters (section 10) and a ptau's power, without reaching into
 * snarkjs's unexported internals. `verify` compares the raw bytes of each zkey's
 * contribution list with the previous zkey's, and reads the beacon contribution's hash.
 */
import { readFileSync } from "node:fs";

interface Sections {
  bytes: Buffer;
  /** type -> [offset, size] of each section's data. */
  sections: Map<number, Array<[number, number]>>;
}

function readSections(path: string, magic: string): Sections {
  const bytes = readFileSync(path);
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== magic) throw new Error(`${path} is not a ${magic} file`);
  const n = bytes.readUInt32LE(8);
  const sections = new Map<number, Array<[number, number]>>();
  let at = 12;
  for (let i = 0; i < n; i++) {
    if (at + 12 > bytes.length) throw new Error(`${path} is truncated (section ${i} of ${n})`);
    const type = bytes.readUInt32LE(at);
    const size = Number(bytes.readBigUInt64LE(at + 4));
    at += 12;
    if (at + size > bytes.length) throw new Error(`${path} is truncated (section type ${type})`);
    sections.set(type, [...(sections.get(type) ?? []), [at, size]]);
    at += size;
  }
  return { bytes, sections };
}

function uniqueSection(s: Sections, type: number, path: string): Buffer {
  const found = s.sections.get(type);
  if (found?.length !== 1) throw new Error(`${path} has ${found?.length ?? 0} sections of type ${type}, expected one`);
  const [offset, size] = found[0]!;
  return s.bytes.subarray(offset, offset + size);
}

/** Where a zkey's section of `type` lies in the file: [offset, size] (the tests edit one in place). */
export function zkeySection(path: string, type: number): [number, number] {
  const s = readSections(path, "zkey");
  const data = uniqueSection(s, type, path);
  return [data.byteOffset - s.bytes.byteOffset, data.length];
}

/** One phase-2 contribution as a zkey records it. */
export interface ZkeyContribution {
  /** Its serialized bytes: what the next zkey must carry unchanged. */
  raw: Buffer;
  /** 0: a contribution from a random key; 1: a beacon (key derived from a public hash). */
  type: number;
  name: string | null;
  beaconHash: Buffer | null;
  numIterationsExp: number | null;
}

export interface ZkeyMpc {
  /** blake2b of the circuit-specific part (the initial zkey): equal along the whole chain. */
  csHash: Buffer;
  contributions: ZkeyContribution[];
}

/** The MPC parameters (section 10) of a Groth16 zkey. */
export function readZkeyMpc(path: string): ZkeyMpc {
  const s = readSections(path, "zkey");
  const header = uniqueSection(s, 2, path); // Groth16 header: n8q first
  const n8q = header.readUInt32LE(0);
  const g1 = n8q * 2;
  const g2 = n8q * 4;
  const mpc = uniqueSection(s, 10, path);
  const csHash = mpc.subarray(0, 64);
  const count = mpc.readUInt32LE(64);
  const contributions: ZkeyContribution[] = [];
  let at = 68;
  for (let i = 0; i < count; i++) {
    const start = at;
    at += 3 * g1 + g2 + 64; // deltaAfter, g1_s, g1_sx, g2_spx, transcript
    const type = mpc.readUInt32LE(at);
    const paramLength = mpc.readUInt32LE(at + 4);
    at += 8;
    const end = at + paramLength;
    let name: string | null = null;
    let beaconHash: Buffer | null = null;
    let numIterationsExp: number | null = null;
    while (at < end) {
      const tag = mpc[at++]!;
      if (tag === 1) {
        const len = mpc[at++]!;
        name = mpc.toString("utf8", at, at + len);
        at += len;
      } else if (tag === 2) {
        numIterationsExp = mpc[at++]!;
      } else if (tag === 3) {
        const len = mpc[at++]!;
        beaconHash = Buffer.from(mpc.subarray(at, at + len));
        at += len;
      } else {
        throw new Error(`${path}: contribution ${i + 1} has an unknown parameter ${tag}`);
      }
    }
    if (at !== end || end > mpc.length) throw new Error(`${path}: contribution ${i + 1}'s parameters are malformed`);
    contributions.push({ raw: Buffer.from(mpc.subarray(start, end)), type, name, beaconHash, numIterationsExp });
  }
  if (at !== mpc.length) throw new Error(`${path}: bytes after the last contribution`);
  return { csHash: Buffer.from(csHash), contributions };
}

/** The power a ptau file holds (2^power points) and the power of the ceremony it came from. */
export function readPtauPower(path: string): { power: number; ceremonyPower: number; prepared: boolean } {
  const s = readSections(path, "ptau");
  const header = uniqueSection(s, 1, path);
  const n8 = header.readUInt32LE(0);
  return { power: header.readUInt32LE(4 + n8), ceremonyPower: header.readUInt32LE(8 + n8), prepared: s.sections.has(12) };
}
