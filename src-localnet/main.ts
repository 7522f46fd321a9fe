/**
 * `npm run localnet`: the local validator on 127.0.0.1:8899 (websocket on the
 * same port and on 8900, like solana-test-validator) with the system, compute
 * budget, SPL token, associated token and pool programs.
 *
 *   npm run localnet -- [--port 8899] [--host 127.0.0.1] [--slot-ms 400]
 *                       [--pool-program-id <base58>] [--faucet-sol 1000000]
 *                       [--demo <dir>]
 *
 * With --demo, it also makes (or reuses) a relayer keypair in <dir>, funds it,
 * opens the wSOL and USDC pools with it as their authority, and writes
 * <dir>/relay.json binding the relay's mainnet to this validator:
 * `RELAY_CONFIG=<dir>/relay.json npm start`.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createPoseidonHasher } from "../src-shared/crypto/poseidon-wasm";
import { DEFAULT_POOL_PROGRAM_ID } from "../src-shared/pool-program";
import { createGroth16Verifier } from "../src-server/adapters/verifier-groth16/worker-pool";
import { createDefaultPrograms } from "./programs";
import { prepareDemo } from "./demo";
import { startLocalValidator } from "./validator";

const here = path.dirname(fileURLToPath(import.meta.url));
const VKEY = path.resolve(here, "../resources/zk/verification_key.json");

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8899" },
    host: { type: "string", default: "127.0.0.1" },
    "slot-ms": { type: "string", default: "400" },
    "pool-program-id": { type: "string", default: DEFAULT_POOL_PROGRAM_ID },
    "faucet-sol": { type: "string", default: "1000000" },
    demo: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log("usage: npm run localnet -- [--port 8899] [--host 127.0.0.1] [--slot-ms 400] [--pool-program-id <base58>] [--faucet-sol 1000000] [--demo <dir>]");
  process.exit(0);
}

const port = Number(values.port);
const slotMs = Number(values["slot-ms"]);
if (!Number.isInteger(port) || port < 0 || port > 65534) throw new Error(`--port: ${values.port}`);
if (!(slotMs > 0)) throw new Error(`--slot-ms: ${values["slot-ms"]}`);

const hasher = await createPoseidonHasher();
const verifier = await createGroth16Verifier(VKEY, { threads: 1 });
const poolProgramId = values["pool-program-id"]!;
const validator = await startLocalValidator({
  host: values.host,
  port,
  alsoListenPortPlusOne: true,
  slotMs,
  faucetLamports: BigInt(values["faucet-sol"]!) * 1_000_000_000n,
  programs: createDefaultPrograms({ poolProgramId, hasher, verifier }),
  programIds: [poolProgramId],
});

console.log(`localnet listening on ${validator.rpcUrl}`);
console.log(`  JSON-RPC   ${validator.rpcUrl}`);
console.log(`  websocket  ${validator.wsUrl} and ws://${values.host}:${validator.port + 1}`);
console.log(`  programs   ${validator.ledger.programIds.join(", ")}`);
console.log(`  pool       ${poolProgramId}`);
console.log(`  faucet     ${validator.faucet.publicKey.toBase58()} (requestAirdrop works for any address)`);
console.log(`  slots      every ${slotMs} ms; test methods: localnet_mintTo, localnet_setFaults, localnet_clearFaults, localnet_status`);

if (values.demo) {
  const file = await prepareDemo(path.resolve(values.demo), validator, poolProgramId);
  console.log(`  demo       pools wSOL and USDC opened; start the relay on it with: RELAY_CONFIG=${file} npm start`);
}

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await validator.close();
  await verifier.close();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
