/**
 * Started by worker-pool.test.ts as `node --import tsx <this file>`, the way
 * the relay runs (src-server/main.ts): the pool's TypeScript workers must load
 * in that mode too. Prints one JSON line: { valid, mutated, threads }.
 */
import { createGroth16Verifier } from "../../../src-server/adapters/verifier-groth16/worker-pool";
import { loadFixtures, VKEY_PATH } from "./fixtures";

const fixtures = loadFixtures();
const verifier = await createGroth16Verifier(VKEY_PATH, { threads: 2 });
const valid = await Promise.all(fixtures.map((f) => verifier.verify(f.proof, f.signals)));
const bad = fixtures[0]!.proof.slice();
bad[100]! ^= 1;
const mutated = await verifier.verify(bad, fixtures[0]!.signals);
await verifier.close();
console.log(JSON.stringify({ valid, mutated, execArgv: process.execArgv }));
