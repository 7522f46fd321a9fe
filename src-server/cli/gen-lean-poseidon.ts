/**
 * Writes the lean Poseidon module the relay loads at start (resources/zk/poseidon-bn254.wasm; see
 * adapters/poseidon-lean/lean-hasher.ts, which builds the same bytes at run time where the file is
 * missing): `npm run gen:poseidon-lean`. It lives beside the server because the builder is the
 * adapter's own run-time code.
 */
import { writeFileSync } from "node:fs";
import { buildPoseidonModule, PREBUILT_WASM } from "../adapters/poseidon-lean/lean-hasher";

const code = await buildPoseidonModule();
writeFileSync(PREBUILT_WASM, code);
console.log(`wrote ${code.length} bytes to ${PREBUILT_WASM}`);
