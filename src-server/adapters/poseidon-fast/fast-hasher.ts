import { readFile } from "node:fs/promises";
import path from "node:path";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { repoPath } from "../../repo-path";
import { createLeanPoseidonHasher, PREBUILT_WASM as LEAN_PREBUILT_WASM } from "../poseidon-lean/lean-hasher";
import { compileWasm, compileWithTieringBudget, instantiateWasm, TIERING_BUDGET_FOR_LONG_RUNS } from "../threads/wasm-tiering";

/**
 * poseidon.c compiled ahead of time (fast-hasher.test.ts rebuilds it with clang and compares bytes).
 * Regenerate after a change to poseidon.c or circomlibjs's constants: `npm run gen:poseidon` (tools/poseidon/build-wasm.ts).
 */
export const PREBUILT_WASM = repoPath("resources", "zk", "poseidon-bn254-fast.wasm");
/** The lean module's file name: looked for next to each place the fast one is looked for. */
const LEAN_FILE = path.basename(LEAN_PREBUILT_WASM);

interface FastPoseidonExports {
  memory: { buffer: ArrayBuffer };
  /** Start of a fixed io_pairs() * 96-byte window the module never uses for anything else. */
  io_buffer(): number;
  io_pairs(): number;
  hash2(pIn: number, pOut: number): void;
  hash3(pIn: number, pOut: number): void;
  hash_pairs(pIn: number, count: number, pOut: number): void;
}
/**
 * The fast module's exports. The relay's own (the main thread's) is compiled with the tier-up
 * budget of a module the start runs briefly (threads/wasm-tiering.ts): a start's few hundred
 * hashes (empty subtrees, pools' frontiers) made TurboFan compile its 37 KB hash function on every
 * start (50-60 ms of CPU); deposits still get it within their first thousand hashes. Another
 * thread's (the frontier lane's) compiles as usual, without touching the process-wide flag: V8's
 * per-process module cache hands it the main thread's compiled code for the same bytes anyway.
 */
function fastExports(code: Uint8Array, startBudget: boolean): FastPoseidonExports {
  const module = startBudget ? compileWithTieringBudget(code, TIERING_BUDGET_FOR_LONG_RUNS) : compileWasm(code);
  return instantiateWasm(module, {}).exports as FastPoseidonExports;
}

let shared: Promise<FieldHasher> | null = null;

/**
 * The relay's Poseidon: 2 and 3 inputs (tree nodes, leaves) in poseidon.c's
 * module, which hashes the 32-byte wire form in place (no BigInt, no
 * per-element conversion), every other arity in the lean hasher; the same
 * outputs as circomlibjs's `buildPoseidon` for any 32-byte inputs. One per
 * process. `prebuilt`: where to look for the module, in order (the desktop
 * app's resources folder is not the repository's); the lean module is looked
 * for in the same folders. Where none has it, every arity goes to the lean
 * hasher: slower, same answers.
 */
export function createFastPoseidonHasher(prebuilt: readonly string[] = [PREBUILT_WASM], warn?: (line: string) => void): Promise<FieldHasher> {
  shared ??= openFastPoseidonHasher(prebuilt, warn);
  return shared;
}

/**
 * A new instance, not the shared one (tests, benchmarks). Without the fast
 * module in any of `prebuilt` it hashes with the lean one: the same outputs,
 * about a third of the speed, which `warn` is told (an operator sees why
 * deposits and start-up got slower).
 */
export async function openFastPoseidonHasher(prebuilt: readonly string[] = [PREBUILT_WASM], warn?: (line: string) => void): Promise<FieldHasher> {
  const leanPlaces = [...new Set([...prebuilt.map((file) => path.join(path.dirname(file), LEAN_FILE)), LEAN_PREBUILT_WASM])];
  const [lean, code] = await Promise.all([createLeanPoseidonHasher(leanPlaces), firstReadable(prebuilt)]);
  if (!code) {
    warn?.(`poseidon: the fast module is in none of ${prebuilt.join(", ")}; hashing with circomlibjs's module instead (the same hashes, about 2.7x slower)`);
    return lean;
  }
  return fastHasher(fastExports(code, true), lean);
}

/**
 * The fast module alone, for 2 and 3 inputs (a frontier's pairs, on the
 * frontier lane's thread): without the lean module a worker stays small.
 * Rejects when the module is in none of `prebuilt`; hashing another arity
 * throws.
 */
export async function openFastPairHasher(prebuilt: readonly string[] = [PREBUILT_WASM]): Promise<FieldHasher> {
  const code = await firstReadable(prebuilt);
  if (!code) throw new Error(`the fast Poseidon module is in none of ${prebuilt.join(", ")}`);
  const none = (): never => {
    throw new RangeError("this hasher takes 2 or 3 inputs only");
  };
  return fastHasher(fastExports(code, false), { hash: none, hashPairs: none });
}

async function firstReadable(files: readonly string[]): Promise<Uint8Array | null> {
  for (const file of files) {
    try {
      return await readFile(file);
    } catch {
      // Missing here (a bundle keeps resources elsewhere): try the next place.
    }
  }
  return null;
}

function fastHasher(wasm: FastPoseidonExports, lean: FieldHasher): FieldHasher {
  const io = wasm.io_buffer();
  const chunk = wasm.io_pairs();
  const ioOut = io + 64 * chunk;
  // The module never grows its memory, but a new buffer would detach this view: re-read it then.
  let mem = new Uint8Array(wasm.memory.buffer);
  const memory = (): Uint8Array => {
    if (mem.buffer !== wasm.memory.buffer) mem = new Uint8Array(wasm.memory.buffer);
    return mem;
  };

  return {
    hash(inputs) {
      const n = inputs.length;
      if (n !== 2 && n !== 3) return lean.hash(inputs);
      const m = memory();
      for (let i = 0; i < n; i++) {
        const input = inputs[i]!;
        if (input.length !== 32) throw new RangeError("Poseidon inputs are 32-byte field elements");
        m.set(input, io + 32 * i);
      }
      if (n === 2) wasm.hash2(io, ioOut);
      else wasm.hash3(io, ioOut);
      return m.slice(ioOut, ioOut + 32);
    },
    hashPairs(pairs, count, out, outOffset) {
      if (!Number.isInteger(count) || count < 0 || pairs.length < 64 * count) throw new RangeError("hashPairs reads count 64-byte pairs");
      if (!Number.isInteger(outOffset) || outOffset < 0 || out.length < outOffset + 32 * count) throw new RangeError("hashPairs writes count 32-byte hashes");
      // Through the fixed window, up to `chunk` pairs per call.
      for (let done = 0; done < count;) {
        const n = Math.min(chunk, count - done);
        const m = memory();
        m.set(pairs.subarray(64 * done, 64 * (done + n)), io);
        wasm.hash_pairs(io, n, ioOut);
        out.set(m.subarray(ioOut, ioOut + 32 * n), outOffset + 32 * done);
        done += n;
      }
    },
  };
}
