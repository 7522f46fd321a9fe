/**
 * The Instructions sysvar (`Sysvar1nstructions1111111111111111111111111`) as
 * agave builds it for a transaction that lists it
 * (solana-instructions-sysvar's construct_instructions_data), all integers
 * u16 little-endian:
 *
 *   count ‖ offset of each instruction (count × u16) ‖ instructions ‖ current index
 *
 * and each instruction, at its offset:
 *
 *   account count ‖ per account: flags u8 (bit 0 signer, bit 1 writable), key 32
 *   ‖ program id 32 ‖ data length ‖ data
 *
 * The last two bytes are the index of the instruction being executed; the
 * runtime rewrites them before each top-level instruction. The flags are the
 * message's (after the runtime's demotion of reserved and invoked keys).
 */
import { PublicKey } from "@solana/web3.js";
import { SYSVAR_INSTRUCTIONS_ID, SYSVAR_OWNER_ID } from "../../src-shared/pool-program";
import type { AccountState, CompiledInstruction, InstructionAccount } from "./types";

export { SYSVAR_INSTRUCTIONS_ID, SYSVAR_OWNER_ID };

const u16 = (n: number): number[] => {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff) throw new RangeError(`instructions sysvar: ${n} does not fit a u16`);
  return [n & 0xff, n >> 8];
};

/** The sysvar's data for these top-level instructions, with `currentIndex` in its last two bytes. */
export function encodeInstructionsSysvar(instructions: readonly CompiledInstruction[], currentIndex = 0): Uint8Array {
  const bodies = instructions.map((ix) => {
    const out: number[] = [...u16(ix.accounts.length)];
    for (const a of ix.accounts) out.push((a.isSigner ? 1 : 0) | (a.isWritable ? 2 : 0), ...new PublicKey(a.address).toBytes());
    out.push(...new PublicKey(ix.programId).toBytes(), ...u16(ix.data.length), ...ix.data);
    return out;
  });
  const header = 2 + 2 * instructions.length;
  const total = header + bodies.reduce((n, b) => n + b.length, 0) + 2;
  const data = new Uint8Array(total);
  data.set(u16(instructions.length), 0);
  let at = header;
  bodies.forEach((b, i) => {
    data.set(u16(at), 2 + 2 * i);
    data.set(b, at);
    at += b.length;
  });
  setInstructionsSysvarIndex(data, currentIndex);
  return data;
}

/** Rewrites the current instruction's index (the last two bytes). */
export function setInstructionsSysvarIndex(data: Uint8Array, index: number): void {
  data.set(u16(index), data.length - 2);
}

/** The sysvar account as a program sees it: owned by the sysvar id, no lamports. */
export function instructionsSysvarAccount(data: Uint8Array): AccountState {
  return { lamports: 0n, owner: SYSVAR_OWNER_ID, data, executable: false };
}

export interface InstructionsSysvar {
  instructions: CompiledInstruction[];
  currentIndex: number;
}

/** Reads the sysvar's data back (what a program does with load_instruction_at); null when it is malformed. */
export function decodeInstructionsSysvar(data: Uint8Array): InstructionsSysvar | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const read16 = (at: number): number | null => (at + 2 <= data.length ? view.getUint16(at, true) : null);
  const count = read16(0);
  if (count === null || data.length < 2 + 2 * count + 2) return null;
  const instructions: CompiledInstruction[] = [];
  for (let i = 0; i < count; i++) {
    let at = read16(2 + 2 * i);
    if (at === null) return null;
    const n = read16(at);
    if (n === null) return null;
    at += 2;
    const accounts: InstructionAccount[] = [];
    for (let k = 0; k < n; k++) {
      if (at + 33 > data.length) return null;
      const flags = data[at]!;
      accounts.push({ address: new PublicKey(data.subarray(at + 1, at + 33)).toBase58(), isSigner: (flags & 1) !== 0, isWritable: (flags & 2) !== 0 });
      at += 33;
    }
    if (at + 32 > data.length) return null;
    const programId = new PublicKey(data.subarray(at, at + 32)).toBase58();
    at += 32;
    const len = read16(at);
    if (len === null || at + 2 + len > data.length) return null;
    instructions.push({ programId, accounts, data: data.slice(at + 2, at + 2 + len) });
  }
  return { instructions, currentIndex: view.getUint16(data.length - 2, true) };
}
