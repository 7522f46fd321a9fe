import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { FIELD_MODULUS } from "../../../src-shared/encoding/field";
import { hasherOverPoseidonWasm, type PoseidonWasmInstance } from "../../../src-shared/crypto/poseidon-wasm-hasher";
import { repoPath } from "../../repo-path";

/** 64 KiB pages; the same 1.6 MB ffjavascript gives its instances (constants take ~0.4 MB). */
const MEMORY_PAGES = 25;

interface ModuleBuilder {
  setMemory(pages: number): void;
  build(): Uint8Array;
}
/** The part of the WebAssembly global used here (the server's TypeScript lib has no DOM types). */
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
  instantiate(code: Uint8Array, imports: Record<string, Record<string, unknown>>): Promise<{ instance: unknown }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
type BuildF1m = (module: ModuleBuilder, q: bigint, prefix: string) => string;
type BuildPoseidonWasm = (module: ModuleBuilder) => void;

/**
 * The module below, built ahead of time (same bytes; lean-hasher.test.ts rebuilds it and compares).
 * Regenerate after a circomlibjs/wasmcurves update: `npm run gen:poseidon-lean` (src-server/cli/gen-lean-poseidon.ts).
 */
export const PREBUILT_WASM = repoPath("resources", "zk", "poseidon-bn254.wasm");

let shared: Promise<FieldHasher> | null = null;

/**
 * The relay's Poseidon: circomlibjs's own wasm Poseidon code (same function,
 * same outputs as `createPoseidonHasher`) in a module that holds only the
 * scalar field and Poseidon instead of ffjavascript's whole BN254 engine
 * (G1, G2, pairing, FFT), loaded from PREBUILT_WASM. Building it at run time
 * (converting ~20k round constants, generating the code) costs most of a
 * second of CPU and ~70 MB of RSS at every start. `prebuilt`: where to look
 * for the file, in order (the desktop app's resources folder is not the
 * repository's); where none has it, the module is still built that way.
 */
export function createLeanPoseidonHasher(prebuilt: readonly string[] = [PREBUILT_WASM]): Promise<FieldHasher> {
  shared ??= (async () => {
    for (const file of prebuilt) {
      try {
        return await instantiate(await readFile(file));
      } catch {
        // Missing here (a bundle keeps resources elsewhere): try the next place, then build it.
      }
    }
    return instantiate(await buildPoseidonModule());
  })();
  return shared;
}

/**
 * circomlibjs's Poseidon plugin on wasmcurves' Montgomery field for the BN254
 * scalar field, as ffjavascript builds it, without the curve. Node only: it
 * reaches the plugin inside the installed package (circomlibjs exports only
 * its main entry, which also loads ethers and every other circomlib primitive).
 */
export async function buildPoseidonModule(): Promise<Uint8Array> {
  const require = createRequire(import.meta.url);
  // wasmbuilder and wasmcurves as ffjavascript (circomlibjs's field library) resolves them.
  const fromFf = createRequire(require.resolve("ffjavascript"));
  const { ModuleBuilder } = fromFf("wasmbuilder") as { ModuleBuilder: new () => ModuleBuilder };
  const { buildF1m } = fromFf("wasmcurves") as { buildF1m: BuildF1m };
  const circomlibDir = path.resolve(path.dirname(require.resolve("circomlibjs")), "..");
  const { buildPoseidonWasm } = (await import(pathToFileURL(path.join(circomlibDir, "src", "poseidon_wasm.js")).href)) as {
    buildPoseidonWasm: BuildPoseidonWasm;
  };
  const builder = new ModuleBuilder();
  builder.setMemory(MEMORY_PAGES);
  buildF1m(builder, FIELD_MODULUS, "frm");
  buildPoseidonWasm(builder);
  return builder.build();
}

async function instantiate(code: Uint8Array): Promise<FieldHasher> {
  const memory = new wasmApi.Memory({ initial: MEMORY_PAGES });
  const { instance } = await wasmApi.instantiate(code, { env: { memory } });
  const u32 = (): Uint32Array => new Uint32Array(memory.buffer);
  const tm: PoseidonWasmInstance = {
    get u8() {
      return new Uint8Array(memory.buffer);
    },
    memory,
    // The module keeps its first free address in word 0, as ffjavascript's thread manager reads it.
    alloc(length: number): number {
      const words = u32();
      while (words[0]! & 3) words[0]!++;
      const at = words[0]!;
      words[0] = at + length;
      return at;
    },
    instance: instance as unknown as PoseidonWasmInstance["instance"],
  };
  return hasherOverPoseidonWasm(tm);
}
