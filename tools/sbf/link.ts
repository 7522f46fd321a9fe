// The linker: ELF64 relocatable BPF objects in, one SBPF v0 shared object out.
// readObject (elf-reader) -> layout (merge, resolve) -> relocate -> writeElf.

import { readObject, LinkError } from "./elf-reader.js";
import { layout } from "./layout.js";
import { relocate } from "./relocate.js";
import { planAddresses, writeElf } from "./elf-writer.js";

export { LinkError };

export interface LinkInput {
  /** Name used in messages (the object's path). */
  name: string;
  bytes: Uint8Array;
}

/** Link objects (in the given order) into the bytes of a deployable program. */
export function link(inputs: LinkInput[]): Uint8Array {
  if (inputs.length === 0) throw new LinkError("nothing to link");
  const lay = layout(inputs.map((i) => readObject(i.name, i.bytes)));
  const addr = planAddresses(lay.text.length, lay.rodata.length, lay.rodataAlign);
  const r = relocate(lay, addr.textAddr, addr.rodataAddr);
  return writeElf(addr, r.text, r.rodata, r.entryOffset, r.syscalls);
}
