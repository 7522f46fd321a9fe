/**
 * `npm run localnet`: the local validator on 127.0.0.1:8899 (websocket on the
 * same port and on 8900, like solana-test-validator). Every transaction runs
 * in LiteSVM: the real System, Compute Budget, SPL Token, Associated Token and
 * Memo programs, the pool program (programs/pool/pool.so) and the cp-swap
 * venue (programs/cp-swap/cp-swap.so).
 *
 *   npm run localnet -- [--port 8899] [--host 127.0.0.1] [--slot-ms 400]
 *                       [--pool-program-id <base58>] [--faucet-sol 1000000]
 *                       [--upgrade-authority <base58>] [--demo <dir>]
 *
 * The pool program is deployed upgradeable, as on a cluster; its upgrade
 * authority is the one key that may open pools (issue 25). LiteSVM deploys it
 * with none: --upgrade-authority names one (then `npm run pool:init` with that
 * keypair opens pools), and --demo makes its relayer the authority.
 *
 * With --demo, it also makes (or reuses) a relayer keypair in <dir>, funds it,
 * opens the wSOL and USDC pools with it as their authority, and writes
 * <dir>/relay.json binding the relay's mainnet to this validator:
 * `RELAY_CONFIG=<dir>/relay.json npm start`.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_POOL_PROGRAM_ID } from "../src-shared/pool-program";
import { parsePublicKey } from "../src-shared/encoding/base58";
import { prepareDemo } from "./demo";
import { CP_SWAP_PROGRAM_ID } from "./programs/cp-swap-client";
import { startLocalValidator } from "./validator";

const startedAt = performance.now();

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8899" },
    host: { type: "string", default: "127.0.0.1" },
    "slot-ms": { type: "string", default: "400" },
    "pool-program-id": { type: "string", default: DEFAULT_POOL_PROGRAM_ID },
    "faucet-sol": { type: "string", default: "1000000" },
    "upgrade-authority": { type: "string" },
    demo: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log(
    "usage: npm run localnet -- [--port 8899] [--host 127.0.0.1] [--slot-ms 400] [--pool-program-id <base58>] [--faucet-sol 1000000] [--upgrade-authority <base58>] [--demo <dir>]",
  );
  process.exit(0);
}

const port = Number(values.port);
const slotMs = Number(values["slot-ms"]);
if (!Number.isInteger(port) || port < 0 || port > 65534) throw new Error(`--port: ${values.port}`);
if (!(slotMs > 0)) throw new Error(`--slot-ms: ${values["slot-ms"]}`);
if (values["upgrade-authority"] !== undefined && !parsePublicKey(values["upgrade-authority"]).ok)
  throw new Error(`--upgrade-authority: ${values["upgrade-authority"]} is not a base58 public key`);

const poolProgramId = values["pool-program-id"]!;
const validator = await startLocalValidator({
  host: values.host,
  port,
  alsoListenPortPlusOne: true,
  slotMs,
  faucetLamports: BigInt(values["faucet-sol"]!) * 1_000_000_000n,
  poolProgramId,
  poolUpgradeAuthority: values["upgrade-authority"] ?? null,
});

console.log(`localnet listening on ${validator.rpcUrl} (ready in ${Math.round(performance.now() - startedAt)} ms)`);
console.log(`  JSON-RPC   ${validator.rpcUrl}`);
console.log(`  websocket  ${validator.wsUrl} and ws://${values.host}:${validator.port + 1}`);
console.log(`  runtime    LiteSVM: System, Compute Budget, SPL Token, Token-2022, Associated Token, Memo, Address Lookup Table`);
console.log(`  pool       ${poolProgramId} (programs/pool/pool.so, upgradeable; upgrade authority ${validator.upgradeAuthority() ?? "none yet"})`);
console.log(`  cp-swap    ${CP_SWAP_PROGRAM_ID} (programs/cp-swap/cp-swap.so)`);
console.log(`  faucet     ${validator.faucet.publicKey.toBase58()} (requestAirdrop works for any address)`);
console.log(
  `  slots      every ${slotMs} ms; test methods: localnet_mintTo, localnet_createSwapPool, localnet_setFaults, localnet_clearFaults, localnet_status`,
);

if (values.demo) {
  const file = await prepareDemo(path.resolve(values.demo), validator, poolProgramId);
  console.log(
    `  demo       pools wSOL and USDC opened by the relayer, now the upgrade authority ${validator.upgradeAuthority()}; start the relay on it with: RELAY_CONFIG=${file} npm start`,
  );
}

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await validator.close();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
