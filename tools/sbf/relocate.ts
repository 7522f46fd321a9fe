// Relocation: patch the merged text and read-only blobs once their file addresses are known
// (vaddr = file offset), and collect the call sites of syscalls for the dynamic relocations.
//
//   R_BPF_64_64 (lddw of data)     -> imm pair = rodataBase + address (no loader work needed)
//   R_BPF_64_ABS64 (pointer in .rodata) -> u64 = rodataBase + address
//   R_BPF_64_32 (call) to a function we define -> relative call, imm = (target - pc - 1) insns
//   R_BPF_64_32 (call) to an undefined symbol  -> syscall: imm stays -1 and the writer emits a
//       dynamic R_BPF_64_32 naming it; the loader writes murmur3-32(name) into imm.
//
// Why not write the hash ourselves: SBPF v0's loader first rewrites every `call imm` whose imm
// is not -1 as a relative call (target = pc + 1 + imm) and rejects targets outside .text, so a
// pre-hashed syscall is read as an out-of-bounds local call (verified in LiteSVM: see
// link.test.ts "a pre-hashed syscall immediate is refused by the loader").

import { LinkError, SHN_UNDEF, STT_FUNC, type ObjectFile } from "./elf-reader.js";
import { definitionOf, type Layout } from "./layout.js";
import { KNOWN_SYSCALLS, MISEXECUTED_OPCODES, REJECTED_CLASSES, SBPF, SYSCALL_ALIASES } from "./sbpf.js";

export const R_BPF_NONE = 0;
export const R_BPF_64_64 = 1;
export const R_BPF_64_ABS64 = 2;
export const R_BPF_64_ABS32 = 3;
export const R_BPF_64_32 = 10;

const OP_LDDW = 0x18;
const OP_CALL = 0x85;

export interface SyscallSite {
  /** Offset of the call instruction within the text blob. */
  textOffset: number;
  /** Syscall name the loader resolves. */
  name: string;
}

export interface Relocated {
  text: Uint8Array;
  rodata: Uint8Array;
  syscalls: SyscallSite[];
  /** Offset of `entrypoint` within the text blob. */
  entryOffset: number;
}

/** Name of the function (by symbol) that contains a text-blob offset, for messages. */
function functionAt(lay: Layout, textOffset: number): string {
  let best: { name: string; start: number } | undefined;
  lay.objects.forEach((obj: ObjectFile, o) => {
    for (const sym of obj.symbols) {
      if (sym.type !== STT_FUNC || sym.shndx === SHN_UNDEF) continue;
      const place = lay.placements[o]!.get(sym.shndx);
      if (!place || place.blob !== "text") continue;
      const start = place.offset + sym.value;
      if (start <= textOffset && (!best || start > best.start)) best = { name: `${sym.name} (${obj.name})`, start };
    }
  });
  return best ? best.name : "?";
}

export function relocate(lay: Layout, textAddr: number, rodataAddr: number): Relocated {
  const text = lay.text.slice();
  const rodata = lay.rodata.slice();
  const tv = new DataView(text.buffer);
  const rv = new DataView(rodata.buffer);
  const syscalls: SyscallSite[] = [];
  const absolute = (blob: "text" | "rodata", offset: number): bigint => SBPF.rodataBase + BigInt((blob === "text" ? textAddr : rodataAddr) + offset);

  lay.objects.forEach((obj, o) => {
    for (const [sectionIndex, relocs] of obj.relocations) {
      const place = lay.placements[o]!.get(sectionIndex);
      if (!place) continue; // relocations of sections we do not keep (debug info, BTF)
      const sectionName = obj.sections[sectionIndex]?.name ?? "?";
      for (const rel of relocs) {
        if (rel.type === R_BPF_NONE) continue;
        const sym = obj.symbols[rel.symbol];
        if (!sym) throw new LinkError(`${obj.name}: relocation in ${sectionName} names missing symbol #${rel.symbol}`);
        const at = place.offset + rel.offset;
        const where = () => `${obj.name}: ${sectionName}+0x${rel.offset.toString(16)}`;

        if (rel.type === R_BPF_64_64) {
          if (place.blob !== "text" || text[at] !== OP_LDDW) throw new LinkError(`${where()}: R_BPF_64_64 not on an lddw instruction`);
          const def = definitionOf(lay, o, sym);
          if (!def) throw new LinkError(`${where()}: undefined data symbol ${sym.name} (in ${functionAt(lay, at)})`);
          if (def.isFunction) {
            throw new LinkError(`${where()}: address of function ${def.name} taken in ${functionAt(lay, at)}: SBPF v0 programs here use no function pointers`);
          }
          const addend = tv.getUint32(at + 4, true);
          const value = absolute(def.blob, def.offset + addend);
          tv.setUint32(at + 4, Number(value & 0xffffffffn), true);
          tv.setUint32(at + 12, Number(value >> 32n), true);
        } else if (rel.type === R_BPF_64_32) {
          if (place.blob !== "text" || text[at] !== OP_CALL) throw new LinkError(`${where()}: R_BPF_64_32 not on a call instruction`);
          const def = definitionOf(lay, o, sym);
          if (!def) {
            if (sym.shndx !== SHN_UNDEF) throw new LinkError(`${where()}: call into a section the linker does not keep (${sym.name})`);
            const name = SYSCALL_ALIASES.get(sym.name) ?? sym.name;
            if (!KNOWN_SYSCALLS.has(name)) {
              throw new LinkError(`undefined symbol ${sym.name}, called from ${functionAt(lay, at)}: not defined in any object and not a known syscall`);
            }
            tv.setInt32(at + 4, -1, true);
            syscalls.push({ textOffset: at, name });
          } else {
            if (!def.isFunction) throw new LinkError(`${where()}: call to data symbol ${def.name}`);
            const addendInsns = tv.getInt32(at + 4, true) + 1; // clang: imm = (offset in section / 8) - 1
            const target = def.offset + addendInsns * 8;
            tv.setInt32(at + 4, (target - at) / 8 - 1, true);
          }
        } else if (rel.type === R_BPF_64_ABS64) {
          if (place.blob !== "rodata") throw new LinkError(`${where()}: R_BPF_64_ABS64 outside read-only data`);
          const def = definitionOf(lay, o, sym);
          if (!def) throw new LinkError(`${where()}: undefined symbol ${sym.name} in read-only data`);
          if (def.isFunction) throw new LinkError(`${where()}: table of function pointers (${def.name}): not supported`);
          const addend = Number(rv.getBigUint64(at, true));
          rv.setBigUint64(at, absolute(def.blob, def.offset + addend), true);
        } else if (rel.type === R_BPF_64_ABS32) {
          throw new LinkError(`${where()}: 32-bit absolute address of ${sym.name}: addresses need 64 bits (SBPF maps data at 0x1_0000_0000)`);
        } else {
          throw new LinkError(`${where()}: unsupported relocation type ${rel.type} (${sym.name})`);
        }
      }
    }
  });

  // Instruction checks: SBPF v0 rejects jmp32 and mis-executes 32-bit add/sub/mul/neg; every
  // resolved call must land inside .text.
  const count = text.length / 8;
  for (let i = 0; i < count; i++) {
    const op = text[i * 8]!;
    const bad = MISEXECUTED_OPCODES.get(op) ?? REJECTED_CLASSES.get(op & 0x07);
    if (bad !== undefined) {
      throw new LinkError(
        `instruction ${bad} (opcode 0x${op.toString(16)}) in ${functionAt(lay, i * 8)}: SBPF ${SBPF.version} would mis-execute or reject it; compile with -mcpu=${SBPF.cpu} and use 64-bit arithmetic`,
      );
    }
    if (op === OP_CALL) {
      const imm = tv.getInt32(i * 8 + 4, true);
      if (imm !== -1) {
        const target = i + 1 + imm;
        if (target < 0 || target >= count) throw new LinkError(`call out of .text in ${functionAt(lay, i * 8)}`);
      }
    }
    if (op === OP_LDDW) i++;
  }

  const entry = lay.globals.get("entrypoint");
  if (!entry || !entry.isFunction) throw new LinkError("no `entrypoint` function: define uint64_t entrypoint(const uint8_t *input)");
  return { text, rodata, syscalls, entryOffset: entry.offset };
}
