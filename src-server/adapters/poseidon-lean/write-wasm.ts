/** Writes the prebuilt Poseidon module (see lean-hasher.ts): `npx tsx src-server/adapters/poseidon-lean/write-wasm.ts`. */
import { writeFileSync } from "node:fs";
import { buildPoseidonModule, PREBUILT_WASM } from "./lean-hasher";

const code = await buildPoseidonModule();
writeFileSync(PREBUILT_WASM, code);
console.log(`wrote ${code.length} bytes to ${PREBUILT_WASM}`);
