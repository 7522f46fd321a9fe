// Layout: classify every input section (text, read-only data, ignored, refused), merge all
// `.text*` into one text blob and all `.rodata*` / `.data.rel.ro*` into one read-only blob, and
// resolve global symbols across the objects. Addresses here are offsets within the merged
// blobs; the writer later fixes where each blob sits in the file (vaddr = file offset).

import {
  LinkError,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHF_WRITE,
  SHN_ABS,
  SHN_COMMON,
  SHN_UNDEF,
  SHT_NOBITS,
  SHT_PROGBITS,
  STB_LOCAL,
  STB_WEAK,
  STT_FILE,
  STT_SECTION,
  type InputSymbol,
  type ObjectFile,
} from "./elf-reader.js";

export type Blob = "text" | "rodata";

/** Where one input section landed. */
export interface Placement {
  blob: Blob;
  offset: number;
}

/** A resolved definition: a blob and an offset within it. */
export interface Definition {
  blob: Blob;
  offset: number;
  isFunction: boolean;
  name: string;
}

export interface Layout {
  objects: ObjectFile[];
  text: Uint8Array;
  rodata: Uint8Array;
  /** Largest alignment any read-only input section asked for. */
  rodataAlign: number;
  /** Placement per object, per input section index. */
  placements: Map<number, Placement>[];
  /** Global (and weak) definitions by name. */
  globals: Map<string, Definition>;
}

function alignUp(n: number, a: number): number {
  return Math.ceil(n / a) * a;
}

function isText(name: string): boolean {
  return name === ".text" || name.startsWith(".text.");
}

function isReadOnlyData(name: string): boolean {
  return name === ".rodata" || name.startsWith(".rodata.") || name === ".data.rel.ro" || name.startsWith(".data.rel.ro.");
}

function symbolsIn(obj: ObjectFile, sectionIndex: number): string[] {
  return obj.symbols.filter((s) => s.shndx === sectionIndex && s.type !== STT_SECTION && s.type !== STT_FILE && s.name !== "").map((s) => s.name);
}

/** Merge the objects' sections (in the given order) and resolve their global symbols. */
export function layout(objects: ObjectFile[]): Layout {
  const textParts: { obj: number; index: number; data: Uint8Array; align: number }[] = [];
  const roParts: { obj: number; index: number; data: Uint8Array; align: number }[] = [];

  objects.forEach((obj, o) => {
    for (const s of obj.sections) {
      if ((s.flags & SHF_ALLOC) === 0) continue; // .strtab, .symtab, .rel*, .BTF, .llvm_addrsig, debug info
      if ((s.flags & SHF_WRITE) !== 0) {
        const names = symbolsIn(obj, s.index);
        throw new LinkError(
          `${obj.name}: writable section ${s.name} (${names.length ? names.join(", ") : "no named symbol"}): ` +
            "SBPF programs have no writable globals; make the global const (or keep the state in an account)",
        );
      }
      if (isText(s.name) && (s.flags & SHF_EXECINSTR) !== 0) {
        if (s.type !== SHT_PROGBITS) throw new LinkError(`${obj.name}: ${s.name} is not PROGBITS`);
        textParts.push({ obj: o, index: s.index, data: s.data, align: Math.max(8, s.align) });
      } else if (isReadOnlyData(s.name)) {
        if (s.type !== SHT_PROGBITS && s.type !== SHT_NOBITS) throw new LinkError(`${obj.name}: ${s.name} has unsupported type ${s.type}`);
        roParts.push({ obj: o, index: s.index, data: s.data, align: s.align });
      } else {
        throw new LinkError(`${obj.name}: unsupported allocated section ${s.name} (${symbolsIn(obj, s.index).join(", ") || "no named symbol"})`);
      }
    }
    for (const sym of obj.symbols) {
      if (sym.shndx === SHN_COMMON) {
        throw new LinkError(`${obj.name}: writable global ${sym.name} (common symbol): SBPF programs have no writable globals; make it const`);
      }
    }
  });

  const placements: Map<number, Placement>[] = objects.map(() => new Map());
  const concat = (parts: typeof textParts, blob: Blob): Uint8Array => {
    let size = 0;
    for (const p of parts) {
      size = alignUp(size, p.align);
      placements[p.obj]!.set(p.index, { blob, offset: size });
      size += p.data.length;
    }
    const out = new Uint8Array(alignUp(size, 8));
    for (const p of parts) out.set(p.data, placements[p.obj]!.get(p.index)!.offset);
    return out;
  };
  const text = concat(textParts, "text");
  const rodata = concat(roParts, "rodata");
  const rodataAlign = roParts.reduce((a, p) => Math.max(a, p.align), 8);

  // Global symbols: one strong definition wins over weak ones; two strong ones are an error.
  const globals = new Map<string, Definition & { weak: boolean; from: string }>();
  objects.forEach((obj, o) => {
    for (const sym of obj.symbols) {
      if (sym.bind === STB_LOCAL || sym.shndx === SHN_UNDEF || sym.name === "") continue;
      if (sym.shndx === SHN_ABS) throw new LinkError(`${obj.name}: absolute symbol ${sym.name} is not supported`);
      const place = placements[o]!.get(sym.shndx);
      if (!place) throw new LinkError(`${obj.name}: global ${sym.name} is defined in a section the linker does not keep`);
      const def = {
        blob: place.blob,
        offset: place.offset + sym.value,
        isFunction: place.blob === "text",
        name: sym.name,
        weak: sym.bind === STB_WEAK,
        from: obj.name,
      };
      const prev = globals.get(sym.name);
      if (prev && !prev.weak && !def.weak) throw new LinkError(`duplicate symbol ${sym.name} in ${prev.from} and ${obj.name}`);
      if (!prev || (prev.weak && !def.weak)) globals.set(sym.name, def);
    }
  });
  return { objects, text, rodata, rodataAlign, placements, globals };
}

/** Where a symbol of an object points, or undefined when it is an undefined external. */
export function definitionOf(lay: Layout, objIndex: number, sym: InputSymbol): Definition | undefined {
  if (sym.shndx === SHN_UNDEF) return lay.globals.get(sym.name);
  if (sym.bind !== STB_LOCAL) {
    const global = lay.globals.get(sym.name);
    if (global) return global;
  }
  const place = lay.placements[objIndex]!.get(sym.shndx);
  if (!place) return undefined;
  const offset = place.offset + (sym.type === STT_SECTION ? 0 : sym.value);
  return { blob: place.blob, offset, isFunction: place.blob === "text", name: sym.name || lay.objects[objIndex]!.sections[sym.shndx]?.name || "?" };
}
