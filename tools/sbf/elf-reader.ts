// ELF64 little-endian relocatable-object reader: the sections, symbols and REL relocations of
// one `clang -target bpf -c` output, as plain data for the linker.

export const SHT_NULL = 0;
export const SHT_PROGBITS = 1;
export const SHT_SYMTAB = 2;
export const SHT_STRTAB = 3;
export const SHT_RELA = 4;
export const SHT_NOBITS = 8;
export const SHT_REL = 9;
export const SHF_WRITE = 0x1;
export const SHF_ALLOC = 0x2;
export const SHF_EXECINSTR = 0x4;
export const SHN_UNDEF = 0;
export const SHN_ABS = 0xfff1;
export const SHN_COMMON = 0xfff2;
export const STB_LOCAL = 0;
export const STB_GLOBAL = 1;
export const STB_WEAK = 2;
export const STT_NOTYPE = 0;
export const STT_OBJECT = 1;
export const STT_FUNC = 2;
export const STT_SECTION = 3;
export const STT_FILE = 4;
export const ET_REL = 1;
export const EM_BPF = 247;

export interface InputSection {
  index: number;
  name: string;
  type: number;
  flags: number;
  align: number;
  size: number;
  /** Contents (zero-filled for SHT_NOBITS). */
  data: Uint8Array;
}

export interface InputSymbol {
  index: number;
  name: string;
  bind: number;
  type: number;
  /** Section index (SHN_UNDEF, SHN_ABS, SHN_COMMON or a real section). */
  shndx: number;
  value: number;
  size: number;
}

export interface InputRelocation {
  /** Offset within the target section. */
  offset: number;
  type: number;
  symbol: number;
}

export interface ObjectFile {
  name: string;
  sections: InputSection[];
  symbols: InputSymbol[];
  /** Relocations per target section index. */
  relocations: Map<number, InputRelocation[]>;
}

export class LinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LinkError";
  }
}

function cstring(bytes: Uint8Array, at: number): string {
  let end = at;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(at, end));
}

/** Parse an ELF64 LE relocatable object for EM_BPF. */
export function readObject(name: string, bytes: Uint8Array): ObjectFile {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (why: string): never => {
    throw new LinkError(`${name}: ${why}`);
  };
  if (bytes.length < 64 || bytes[0] !== 0x7f || bytes[1] !== 0x45 || bytes[2] !== 0x4c || bytes[3] !== 0x46) {
    fail("not an ELF file");
  }
  if (bytes[4] !== 2 || bytes[5] !== 1) fail("not ELF64 little-endian");
  if (view.getUint16(16, true) !== ET_REL) fail("not a relocatable object (compile with -c)");
  if (view.getUint16(18, true) !== EM_BPF) fail(`e_machine ${view.getUint16(18, true)} is not EM_BPF (247): compile with -target bpf`);
  const shoff = Number(view.getBigUint64(40, true));
  const shentsize = view.getUint16(58, true);
  const shnum = view.getUint16(60, true);
  const shstrndx = view.getUint16(62, true);
  if (shentsize !== 64 || shoff + shnum * 64 > bytes.length) fail("bad section header table");

  interface RawHeader {
    name: number;
    type: number;
    flags: number;
    offset: number;
    size: number;
    link: number;
    info: number;
    align: number;
    entsize: number;
  }
  const raw: RawHeader[] = [];
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * 64;
    raw.push({
      name: view.getUint32(at, true),
      type: view.getUint32(at + 4, true),
      flags: Number(view.getBigUint64(at + 8, true)),
      offset: Number(view.getBigUint64(at + 24, true)),
      size: Number(view.getBigUint64(at + 32, true)),
      link: view.getUint32(at + 40, true),
      info: view.getUint32(at + 44, true),
      align: Number(view.getBigUint64(at + 48, true)),
      entsize: Number(view.getBigUint64(at + 56, true)),
    });
  }
  const shstr = raw[shstrndx] ?? fail("missing section name table");
  const sectionBytes = (h: RawHeader): Uint8Array => {
    if (h.type === SHT_NOBITS) return new Uint8Array(h.size);
    if (h.offset + h.size > bytes.length) fail("section beyond end of file");
    return bytes.subarray(h.offset, h.offset + h.size);
  };
  const shstrBytes = sectionBytes(shstr);

  const sections: InputSection[] = raw.map((h, index) => ({
    index,
    name: cstring(shstrBytes, h.name),
    type: h.type,
    flags: h.flags,
    align: Math.max(1, h.align),
    size: h.size,
    data: sectionBytes(h),
  }));

  let symbols: InputSymbol[] = [];
  const relocations = new Map<number, InputRelocation[]>();
  raw.forEach((h, index) => {
    if (h.type === SHT_SYMTAB) {
      if (symbols.length > 0) fail("more than one symbol table");
      const strtab = raw[h.link] ?? fail("symbol table without string table");
      const str = sectionBytes(strtab);
      const data = sectionBytes(h);
      const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
      symbols = [];
      for (let i = 0; i * 24 < data.length; i++) {
        const at = i * 24;
        const info = dv.getUint8(at + 4);
        symbols.push({
          index: i,
          name: cstring(str, dv.getUint32(at, true)),
          bind: info >> 4,
          type: info & 0xf,
          shndx: dv.getUint16(at + 6, true),
          value: Number(dv.getBigUint64(at + 8, true)),
          size: Number(dv.getBigUint64(at + 16, true)),
        });
      }
    } else if (h.type === SHT_REL || h.type === SHT_RELA) {
      const target = sections[h.info];
      if (!target) fail(`relocation section ${sections[index]?.name} targets a missing section`);
      if (h.type === SHT_RELA && (target!.flags & SHF_ALLOC) !== 0) {
        fail(`RELA relocations for ${target!.name} are not supported (BPF objects use REL)`);
      }
      if (h.type === SHT_RELA) return;
      const data = sectionBytes(h);
      const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const list: InputRelocation[] = [];
      for (let at = 0; at + 16 <= data.length; at += 16) {
        const info = dv.getBigUint64(at + 8, true);
        list.push({ offset: Number(dv.getBigUint64(at, true)), type: Number(info & 0xffffffffn), symbol: Number(info >> 32n) });
      }
      relocations.set(h.info, list);
    }
  });
  return { name, sections, symbols, relocations };
}
