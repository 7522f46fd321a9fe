#!/usr/bin/env node
// Regenerates every withdraw-circuit artifact from scratch (docs/zk.md):
//
//   circuits/withdraw.circom
//     -> circom2 --r1cs --wasm --O2                    (out/zk/withdraw.r1cs, withdraw_js/withdraw.wasm)
//     -> powers of tau, bn128, 2^14, local             (out/zk/pot14_*.ptau)
//        new accumulator, seeded contribution, beacon, prepare phase 2
//     -> groth16 phase 2                               (out/zk/withdraw_*.zkey)
//        new zkey, seeded contribution, beacon, verify against r1cs + ptau
//     -> resources/zk/{withdraw.wasm, withdraw.zkey, verification_key.json, artifacts.json}
//
// Usage (run by hand, never from tests; ~10-12 min on 2 cores):
//   ZK_SEED=<seed> npm run zk:setup        or   npm run zk:setup -- --seed <seed>
//   (node tools/zk/setup.mjs takes the same arguments)
//   optional: --beacon <hex>  (phase 1 and phase 2 beacon hash; default: derived from the seed)
//
// Determinism: for a given seed (and beacon) the output is byte-identical
// (r1cs, wasm, zkey, vkey; only artifacts.json's date and timings change).
// snarkjs's `contribute` cannot be used for that: it always mixes 64 bytes of
// OS randomness into the supplied entropy (misc.getRandomRng), so two runs with
// the same entropy give different files. The seeded contributions therefore use
// snarkjs's beacon primitive (a contribution whose key is derived from a public
// hash), with the hash = sha256(domain-tag ":" seed). The contribution is
// recorded in the ptau/zkey as a beacon-type contribution named after the seed.
//
// SECURITY: whoever knows the seed can recompute the toxic waste and forge
// proofs. These artifacts are for development and tests only; production needs
// a multi-party ceremony (see docs/zk.md).

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildBn128 } from "ffjavascript";
import * as snarkjs from "snarkjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CIRCUIT = "circuits/withdraw.circom"; // relative to ROOT (circom2 is a WASI build: keep paths relative)
const BUILD = "out/zk"; // gitignored (out/)
const RESOURCES = "resources/zk";
const PTAU_POWER = 14;
const COMPILE_FLAGS = ["--r1cs", "--wasm", "--O2", "-l", "node_modules"];
const BEACON_ITERATIONS_EXP = 10; // 2^10 sha256 iterations (snarkjs minimum)
const PUBLIC_INPUTS = ["root", "nullifierHash", "recipient", "amount", "mint", "extDataHash", "changeCommitment"]; // protocol v3
const EXPECTED_PUBLIC = PUBLIC_INPUTS.length;

const require = createRequire(import.meta.url);
const CIRCOM_CLI = join(dirname(require.resolve("circom2/package.json")), "cli.js");

const { values: args } = parseArgs({
  options: { seed: { type: "string" }, beacon: { type: "string" }, help: { type: "boolean", short: "h" } },
});
if (args.help) {
  console.log("usage: ZK_SEED=<seed> node tools/zk/setup.mjs [--seed <seed>] [--beacon <hex>]");
  process.exit(0);
}
const seed = args.seed ?? process.env.ZK_SEED;
if (!seed) {
  console.error("error: a seed is required (ZK_SEED=<seed> or --seed <seed>); see docs/zk.md");
  process.exit(2);
}
const beaconOverride = args.beacon ?? process.env.ZK_BEACON;
if (beaconOverride !== undefined && !/^(?:[0-9a-fA-F]{2}){1,255}$/.test(beaconOverride)) {
  console.error("error: --beacon must be an even-length hex string (1..255 bytes)");
  process.exit(2);
}

/** 32-byte hex hash for a seeded step; distinct tags keep the steps independent. */
const seededHash = (tag) => createHash("sha256").update(`private-withdrawal-relay/zk/${tag}:${seed}`).digest("hex");
const sha256File = (path) => createHash("sha256").update(readFileSync(path)).digest("hex");
const p = (rel) => join(ROOT, rel);

const logger = {
  error: (m) => console.error(`  [snarkjs] ${m}`),
  warn: (m) => console.warn(`  [snarkjs] ${m}`),
  info: () => {},
  debug: () => {},
};

const timings = {};
async function step(name, fn) {
  const t0 = performance.now();
  process.stdout.write(`${new Date().toISOString()}  ${name} ...\n`);
  const result = await fn();
  const s = (performance.now() - t0) / 1000;
  timings[name] = Math.round(s * 10) / 10;
  process.stdout.write(`${new Date().toISOString()}  ${name} done in ${s.toFixed(1)} s\n`);
  return result;
}

function check(ok, message) {
  if (!ok) throw new Error(message);
}

function circom(argv) {
  return execFileSync(process.execPath, [CIRCOM_CLI, ...argv], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

const t0 = performance.now();
const circomVersion = circom(["--version"]).match(/circom compiler (\S+)/)?.[1] ?? "unknown";
const circom2Version = require("circom2/package.json").version;
const snarkjsVersion = JSON.parse(readFileSync(join(dirname(require.resolve("snarkjs")), "..", "package.json"), "utf8")).version;

console.log(`zk setup: seed label "${seed}", circom ${circomVersion} (circom2 ${circom2Version}), snarkjs ${snarkjsVersion}`);
rmSync(p(BUILD), { recursive: true, force: true });
mkdirSync(p(BUILD), { recursive: true });
mkdirSync(p(RESOURCES), { recursive: true });

// --- 1. compile ---------------------------------------------------------------
await step("compile", () => circom([CIRCUIT, ...COMPILE_FLAGS, "-o", BUILD]));
const r1csPath = p(`${BUILD}/withdraw.r1cs`);
const wasmPath = p(`${BUILD}/withdraw_js/withdraw.wasm`);
const r1cs = await snarkjs.r1cs.info(r1csPath);
console.log(`  constraints ${r1cs.nConstraints}, wires ${r1cs.nVars}, public inputs ${r1cs.nPubInputs}, private inputs ${r1cs.nPrvInputs}`);
check(r1cs.nPubInputs === EXPECTED_PUBLIC && r1cs.nOutputs === 0, "unexpected public signal layout");
// Groth16 needs a domain of at least nConstraints + nPublic + 1 points.
check(r1cs.nConstraints + r1cs.nPubInputs + 1 <= 2 ** PTAU_POWER, `circuit does not fit powers of tau 2^${PTAU_POWER}`);

// Multi-threaded curve for the setup itself; snarkjs picks it up from the global cache.
const curve = await buildBn128();
globalThis.curve_bn128 = curve;
try {
  // --- 2. phase 1: powers of tau ----------------------------------------------
  const pot = (n) => p(`${BUILD}/pot${PTAU_POWER}_${n}.ptau`);
  const ptauBeacon = beaconOverride ?? seededHash("ptau-beacon");
  await step("ptau new", () => snarkjs.powersOfTau.newAccumulator(curve, PTAU_POWER, pot("0000"), logger));
  await step("ptau seeded contribution", () =>
    snarkjs.powersOfTau.beacon(pot("0000"), pot("0001"), `seeded contribution (${seed})`, seededHash("ptau-contribution"), BEACON_ITERATIONS_EXP, logger),
  );
  await step("ptau beacon", () => snarkjs.powersOfTau.beacon(pot("0001"), pot("beacon"), "final beacon", ptauBeacon, BEACON_ITERATIONS_EXP, logger));
  await step("ptau prepare phase 2", () => snarkjs.powersOfTau.preparePhase2(pot("beacon"), pot("final"), logger));

  // --- 3. phase 2: circuit-specific --------------------------------------------
  const zkey = (n) => p(`${BUILD}/withdraw_${n}.zkey`);
  const zkeyBeacon = beaconOverride ?? seededHash("zkey-beacon");
  const csHash = await step("zkey new (groth16 setup)", () => snarkjs.zKey.newZKey(r1csPath, pot("final"), zkey("0000"), logger));
  await step("zkey seeded contribution", () =>
    snarkjs.zKey.beacon(zkey("0000"), zkey("0001"), `seeded contribution (${seed})`, seededHash("zkey-contribution"), BEACON_ITERATIONS_EXP, logger),
  );
  await step("zkey beacon", () => snarkjs.zKey.beacon(zkey("0001"), zkey("final"), "final beacon", zkeyBeacon, BEACON_ITERATIONS_EXP, logger));
  const zkeyOk = await step("zkey verify against r1cs + ptau", () => snarkjs.zKey.verifyFromR1cs(r1csPath, pot("final"), zkey("final"), logger));
  check(zkeyOk === true, "zkey verification against r1cs + ptau failed");
  const vkey = await step("export verification key", () => snarkjs.zKey.exportVerificationKey(zkey("final")));
  check(vkey.nPublic === EXPECTED_PUBLIC, `verification key has nPublic ${vkey.nPublic}`);

  // --- 4. publish -------------------------------------------------------------
  copyFileSync(wasmPath, p(`${RESOURCES}/withdraw.wasm`));
  copyFileSync(zkey("final"), p(`${RESOURCES}/withdraw.zkey`));
  writeFileSync(p(`${RESOURCES}/verification_key.json`), JSON.stringify(vkey, null, 1) + "\n");

  const artifacts = {
    circuit: CIRCUIT,
    circomVersion,
    circom2NpmVersion: circom2Version,
    snarkjsVersion,
    compileFlags: COMPILE_FLAGS,
    constraints: r1cs.nConstraints,
    wires: r1cs.nVars,
    publicInputs: PUBLIC_INPUTS,
    protocol: 3,
    ptauPower: PTAU_POWER,
    circuitHash: Buffer.from(csHash).toString("hex"), // snarkjs's blake2b of the constraint system
    sha256: {
      r1cs: sha256File(r1csPath),
      "withdraw.wasm": sha256File(p(`${RESOURCES}/withdraw.wasm`)),
      "withdraw.zkey": sha256File(p(`${RESOURCES}/withdraw.zkey`)),
      "verification_key.json": sha256File(p(`${RESOURCES}/verification_key.json`)),
    },
    seedLabel: seed,
    beacon: beaconOverride ? { ptau: beaconOverride, zkey: beaconOverride } : { ptau: ptauBeacon, zkey: zkeyBeacon, derivedFromSeed: true },
    beaconIterationsExp: BEACON_ITERATIONS_EXP,
    warning:
      "Single-party setup reproducible from the seed above: anyone who knows the seed can forge proofs. Development and tests only; production needs a multi-party ceremony (docs/zk.md).",
    date: new Date().toISOString(),
    timingsSeconds: { ...timings, total: Math.round((performance.now() - t0) / 100) / 10 },
  };
  writeFileSync(p(`${RESOURCES}/artifacts.json`), JSON.stringify(artifacts, null, 2) + "\n");
  console.log(`wrote ${relative(ROOT, p(RESOURCES))}/{withdraw.wasm, withdraw.zkey, verification_key.json, artifacts.json}`);
  console.log(`total ${artifacts.timingsSeconds.total} s`);
} finally {
  await curve.terminate();
}
