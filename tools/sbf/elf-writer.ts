// ELF writer: the shared object the SBPF v0 loader accepts. ET_DYN, EM_BPF, e_flags from
// sbpf.ts, entry = `entrypoint`, every section's vaddr equal to its file offset.
//
// File order (each piece 8-aligned):
//   ELF header | program headers | .text | .rodata | .dynamic | .dynsym | .dynstr | .rel.dyn |
//   .shstrtab | section headers
// Program headers: PT_LOAD .text (R+X), PT_LOAD .rodata (R, when present), PT_LOAD of the
// dynamic tables (R), PT_DYNAMIC. The loader finds .dynsym/.rel.dyn through DT_SYMTAB/DT_REL
// and resolves each dynamic R_BPF_64_32 (a syscall call site) by the symbol's name.
// No timestamps, no paths: the same input bytes give the same output bytes.

import { SBPF } from "./sbpf.js";
import type { SyscallSite } from "./relocate.js";

const EHDR = 64;
const PHDR = 56;
const SHDR = 64;
const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PF_X = 1;
const PF_R = 4;
const SHT_PROGBITS = 1;
const SHT_STRTAB = 3;
const SHT_DYNAMIC = 6;
const SHT_REL = 9;
const SHT_DYNSYM = 11;
const SHF_ALLOC = 2;
const SHF_EXECINSTR = 4;
const DT_NULL = 0;
const DT_STRTAB = 5;
const DT_SYMTAB = 6;
const DT_STRSZ = 10;
const DT_SYMENT = 11;
const DT_REL = 17;
const DT_RELSZ = 18;
const DT_RELENT = 19;
const DT_TEXTREL = 22;
const R_BPF_64_32 = 10;
const STB_GLOBAL = 1;
const STT_NOTYPE = 0;

function alignUp(n: number, a: number): number {
  return Math.ceil(n / a) * a;
}

/** Where .text and .rodata go, known before relocation (it depends only on their sizes). */
export interface Addresses {
  phnum: number;
  textAddr: number;
  rodataAddr: number;
}

export function planAddresses(textSize: number, rodataSize: number, rodataAlign: number): Addresses {
  const phnum = rodataSize > 0 ? 4 : 3;
  const textAddr = alignUp(EHDR + phnum * PHDR, 8);
  const rodataAddr = alignUp(textAddr + textSize, Math.max(8, rodataAlign));
  return { phnum, textAddr, rodataAddr };
}

class StringTable {
  bytes: number[] = [0];
  private at = new Map<string, number>();
  add(s: string): number {
    const known = this.at.get(s);
    if (known !== undefined) return known;
    const offset = this.bytes.length;
    for (const b of new TextEncoder().encode(s)) this.bytes.push(b);
    this.bytes.push(0);
    this.at.set(s, offset);
    return offset;
  }
}

interface OutSection {
  name: string;
  type: number;
  flags: number;
  offset: number;
  size: number;
  link: number;
  info: number;
  align: number;
  entsize: number;
  data: Uint8Array;
}

export function writeElf(addr: Addresses, text: Uint8Array, rodata: Uint8Array, entryOffset: number, syscalls: SyscallSite[]): Uint8Array {
  // Dynamic symbols: one per distinct syscall name, sorted by name.
  const names = [...new Set(syscalls.map((s) => s.name))].sort();
  const dynstr = new StringTable();
  const symIndex = new Map<string, number>();
  const dynsym = new Uint8Array(24 * (names.length + 1));
  const dsv = new DataView(dynsym.buffer);
  names.forEach((name, i) => {
    const at = 24 * (i + 1);
    dsv.setUint32(at, dynstr.add(name), true);
    dsv.setUint8(at + 4, (STB_GLOBAL << 4) | STT_NOTYPE);
    symIndex.set(name, i + 1);
  });
  const dynstrBytes = Uint8Array.from(dynstr.bytes);

  const sites = [...syscalls].sort((a, b) => a.textOffset - b.textOffset);
  const relDyn = new Uint8Array(16 * sites.length);
  const rlv = new DataView(relDyn.buffer);

  // File offsets.
  let cursor = addr.rodataAddr + rodata.length;
  const dynamicAddr = alignUp(cursor, 8);
  const dynEntries = (sites.length > 0 ? 4 : 0) + 4 + 1; // REL, RELSZ, RELENT, TEXTREL; SYMTAB, SYMENT, STRTAB, STRSZ; NULL
  const dynamicSize = 16 * dynEntries;
  const dynsymAddr = alignUp(dynamicAddr + dynamicSize, 8);
  const dynstrAddr = dynsymAddr + dynsym.length;
  const relDynAddr = alignUp(dynstrAddr + dynstrBytes.length, 8);
  cursor = relDynAddr + relDyn.length;

  sites.forEach((site, i) => {
    rlv.setBigUint64(16 * i, BigInt(addr.textAddr + site.textOffset), true);
    rlv.setBigUint64(16 * i + 8, (BigInt(symIndex.get(site.name)!) << 32n) | BigInt(R_BPF_64_32), true);
  });

  const dynamic = new Uint8Array(dynamicSize);
  const dv = new DataView(dynamic.buffer);
  const tags: [number, number][] = [];
  if (sites.length > 0) tags.push([DT_REL, relDynAddr], [DT_RELSZ, relDyn.length], [DT_RELENT, 16], [DT_TEXTREL, 0]);
  tags.push([DT_SYMTAB, dynsymAddr], [DT_SYMENT, 24], [DT_STRTAB, dynstrAddr], [DT_STRSZ, dynstrBytes.length]);
  tags.push([DT_NULL, 0]);
  tags.forEach(([tag, val], i) => {
    dv.setBigUint64(16 * i, BigInt(tag), true);
    dv.setBigUint64(16 * i + 8, BigInt(val), true);
  });

  // Sections (index 0 is the null section).
  const shstr = new StringTable();
  const sections: OutSection[] = [];
  const push = (s: Omit<OutSection, "size"> & { size?: number }) => sections.push({ ...s, size: s.size ?? s.data.length });
  push({ name: ".text", type: SHT_PROGBITS, flags: SHF_ALLOC | SHF_EXECINSTR, offset: addr.textAddr, link: 0, info: 0, align: 8, entsize: 0, data: text });
  if (rodata.length > 0)
    push({ name: ".rodata", type: SHT_PROGBITS, flags: SHF_ALLOC, offset: addr.rodataAddr, link: 0, info: 0, align: 8, entsize: 0, data: rodata });
  const dynsymIndex = sections.length + 2; // 1-based, after .dynamic
  push({ name: ".dynamic", type: SHT_DYNAMIC, flags: SHF_ALLOC, offset: dynamicAddr, link: dynsymIndex + 1, info: 0, align: 8, entsize: 16, data: dynamic });
  push({ name: ".dynsym", type: SHT_DYNSYM, flags: SHF_ALLOC, offset: dynsymAddr, link: dynsymIndex + 1, info: 1, align: 8, entsize: 24, data: dynsym });
  push({ name: ".dynstr", type: SHT_STRTAB, flags: SHF_ALLOC, offset: dynstrAddr, link: 0, info: 0, align: 1, entsize: 0, data: dynstrBytes });
  if (sites.length > 0)
    push({ name: ".rel.dyn", type: SHT_REL, flags: SHF_ALLOC, offset: relDynAddr, link: dynsymIndex, info: 0, align: 8, entsize: 16, data: relDyn });
  for (const s of sections) shstr.add(s.name);
  shstr.add(".shstrtab");
  const shstrBytes = Uint8Array.from(shstr.bytes);
  const shstrAddr = cursor;
  push({ name: ".shstrtab", type: SHT_STRTAB, flags: 0, offset: shstrAddr, link: 0, info: 0, align: 1, entsize: 0, data: shstrBytes });
  const shoff = alignUp(shstrAddr + shstrBytes.length, 8);
  const shnum = sections.length + 1;
  const total = shoff + shnum * SHDR;

  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  // ELF header.
  out.set([0x7f, 0x45, 0x4c, 0x46, 2 /* 64-bit */, 1 /* LE */, 1 /* EV_CURRENT */, 0 /* SYSV ABI */], 0);
  v.setUint16(16, 3, true); // ET_DYN
  v.setUint16(18, SBPF.eMachine, true);
  v.setUint32(20, 1, true); // e_version
  v.setBigUint64(24, BigInt(addr.textAddr + entryOffset), true); // e_entry
  v.setBigUint64(32, BigInt(EHDR), true); // e_phoff
  v.setBigUint64(40, BigInt(shoff), true); // e_shoff
  v.setUint32(48, SBPF.eFlags, true);
  v.setUint16(52, EHDR, true);
  v.setUint16(54, PHDR, true);
  v.setUint16(56, addr.phnum, true);
  v.setUint16(58, SHDR, true);
  v.setUint16(60, shnum, true);
  v.setUint16(62, shnum - 1, true); // .shstrtab is last

  // Program headers.
  const phdrs: [type: number, flags: number, offset: number, size: number][] = [[PT_LOAD, PF_R | PF_X, addr.textAddr, text.length]];
  if (rodata.length > 0) phdrs.push([PT_LOAD, PF_R, addr.rodataAddr, rodata.length]);
  phdrs.push([PT_LOAD, PF_R, dynamicAddr, cursor - dynamicAddr]);
  phdrs.push([PT_DYNAMIC, PF_R, dynamicAddr, dynamicSize]);
  if (phdrs.length !== addr.phnum) throw new Error("program header count changed after planning");
  phdrs.forEach(([type, flags, offset, size], i) => {
    const at = EHDR + i * PHDR;
    v.setUint32(at, type, true);
    v.setUint32(at + 4, flags, true);
    v.setBigUint64(at + 8, BigInt(offset), true); // p_offset
    v.setBigUint64(at + 16, BigInt(offset), true); // p_vaddr
    v.setBigUint64(at + 24, BigInt(offset), true); // p_paddr
    v.setBigUint64(at + 32, BigInt(size), true); // p_filesz
    v.setBigUint64(at + 40, BigInt(size), true); // p_memsz
    v.setBigUint64(at + 48, 8n, true); // p_align
  });

  // Section contents and headers.
  sections.forEach((s, i) => {
    out.set(s.data, s.offset);
    const at = shoff + (i + 1) * SHDR;
    v.setUint32(at, shstr.add(s.name), true);
    v.setUint32(at + 4, s.type, true);
    v.setBigUint64(at + 8, BigInt(s.flags), true);
    v.setBigUint64(at + 16, BigInt(s.flags & SHF_ALLOC ? s.offset : 0), true); // sh_addr = offset
    v.setBigUint64(at + 24, BigInt(s.offset), true);
    v.setBigUint64(at + 32, BigInt(s.size), true);
    v.setUint32(at + 40, s.link, true);
    v.setUint32(at + 44, s.info, true);
    v.setBigUint64(at + 48, BigInt(s.align), true);
    v.setBigUint64(at + 56, BigInt(s.entsize), true);
  });
  return out;
}
