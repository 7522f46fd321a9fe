/**
 * Why the pool program must be built for a ceremony's key (issue 26, docs/ceremony.md), on the
 * real runtime (LiteSVM):
 * - the committed programs/pool/pool.so (the development key) accepts a proof forged from that
 *   key's toxic waste, which anyone recomputes from this repository: an invented nullifier takes
 *   the whole vault (tests/support/forge-dev-proof.ts);
 * - the same pool upgraded to a build for another key (build:programs --vkey; the test key is the
 *   development zkey plus one real phase-2 contribution, tests/support/ceremony-key.ts) withdraws
 *   with a real proof made with the new zkey, and refuses both a real proof made with the
 *   development zkey for the same withdrawal and the forged proof (InvalidProof).
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Keypair, PublicKey } from "@solana/web3.js";
import { beforeAll, describe, expect, it } from "vitest";
import { buildPoolForKey, type PoolBuild } from "../../tools/sbf/build";
import { findClang, INSTALL_HINT } from "../../tools/sbf/compile";
import { proveWithdrawal, verifyWithdrawalProof, withdrawalPublicSignals, type WithdrawalProof } from "../../src-client/sdk/prove";
import { FIELD_MODULUS, bigIntToBytes32, bytesToBigInt } from "../../src-shared/encoding/field";
import { poolNullifierAddress, withdrawInstruction, type WithdrawParams } from "../../src-shared/pool-program";
import { encodeProof, fromSnarkjs } from "../../src-shared/zk/proof-codec";
import { ceremonyProver, ceremonyTestKey, type CeremonyTestKey } from "../../tests/support/ceremony-key";
import { forgeDevProof } from "../../tests/support/forge-dev-proof";
import { testRecipient } from "../../tests/support/proofs";
import { expectPoolError } from "./expect-errors";
import { FEE, MINT, PROGRAM, SOL, ata, fixturePool, notePool, POOL_SO, setUpgradeAuthority, type NotePool, type PoolWorld } from "./test-support";

const clang = findClang();
if (!clang) console.warn(`SKIPPED programs/pool/pool-ceremony-key.test.ts: clang not found (${INSTALL_HINT})`);
// The test key's contribution (~20 s once per checkout), a pool build (~3 s), a proof per key (~5-10 s each, cached).
const SLOW = 240_000;

/** A field element nobody deposited: the attacker's invented nullifier hash or change leaf. */
const madeUpField = (): Uint8Array => bigIntToBytes32(bytesToBigInt(randomBytes(32)) % FIELD_MODULUS);

/**
 * A forged withdrawal of `amount` from `world`'s pool (FIXTURE mint) to a fresh attacker: the
 * pool's current root, an invented nullifier, the attacker as relayer (fee 0), its proof forged
 * from the development key's toxic waste and checked with snarkjs against the development vkey.
 */
async function forgedWithdrawal(world: PoolWorld, amount: bigint): Promise<{ attacker: Keypair; params: WithdrawParams }> {
  const attacker = Keypair.generate();
  world.svm.airdrop(attacker.publicKey, 10n * SOL);
  world.svm.createTokenAccount(world.mint, attacker.publicKey, 0n); // withdraw wants the relayer's token account, even for a fee of 0
  const t = world.treeAccount();
  const statement = {
    root: t.roots[t.currentRootIndex]!,
    nullifierHash: madeUpField(),
    recipient: attacker.publicKey.toBase58(),
    amount,
    mint: MINT,
    relayer: attacker.publicKey.toBase58(),
    fee: 0n,
    swap: null,
    changeCommitment: madeUpField(),
  };
  const signals = withdrawalPublicSignals(world.hasher, statement);
  if (!signals.ok) throw new Error(signals.error.message);
  const proof = encodeProof(fromSnarkjs(await forgeDevProof(signals.value)));
  // The forgery is a proof the development key accepts, by snarkjs's own verifier.
  expect(await verifyWithdrawalProof(proof, signals.value)).toEqual({ ok: true, value: true });
  const { relayer, recipient, root, nullifierHash, changeCommitment, fee } = statement;
  return { attacker, params: { programId: PROGRAM, relayer, mint: MINT, proof, root, nullifierHash, recipient, amount, fee, changeCommitment } };
}

describe("the committed development pool.so (why the key matters)", () => {
  it("accepts a proof forged from the development key's toxic waste: an invented nullifier drains the whole vault", async () => {
    const f = await fixturePool();
    const vault = f.world.vaultBalance();
    expect(vault).toBe(28n * SOL);
    const { attacker, params } = await forgedWithdrawal(f.world, vault);
    const r = f.world.send([withdrawInstruction(params)], [attacker]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    expect(f.world.vaultBalance()).toBe(0n);
    expect(f.world.balance(ata(attacker.publicKey.toBase58(), MINT))).toBe(vault);
  }, 60_000);
});

describe.skipIf(!clang)("a pool program built for another key (build:programs --vkey)", () => {
  let key: CeremonyTestKey;
  let build: PoolBuild;
  let f: NotePool;
  // Fixed, so re-runs prove the same statements and hit the proof caches.
  const recipient = testRecipient("programs/pool ceremony key");
  let withNewKey: WithdrawalProof;
  let withDevKey: WithdrawalProof;
  let vaultBefore: bigint;

  beforeAll(async () => {
    key = await ceremonyTestKey();
    build = buildPoolForKey({ vkey: { path: key.vkeyPath } });
    f = await notePool();
    const placed = await f.depositNote("ceremony key", 5n * SOL);
    // The pool (made by the development build) is upgraded in place to the build for the new
    // key, as a deployment would be: the same program id, its tree and vault as they are.
    f.world.svm.addProgram(build.so, new PublicKey(PROGRAM));
    setUpgradeAuthority(f.world.svm, PROGRAM, f.relayer.publicKey);
    const merkle = f.mirrors.get(MINT)!.merkle(placed.leafIndex);
    const proved = await proveWithdrawal(placed.note, merkle, recipient, {
      relayer: f.relayer.publicKey.toBase58(),
      fee: FEE,
      hasher: f.world.hasher,
      wasmPath: key.wasmPath,
      zkeyPath: key.zkeyPath,
      prover: ceremonyProver(key),
    });
    if (!proved.ok) throw new Error(`${proved.error.kind}: ${proved.error.message}`);
    withNewKey = proved.value;
    withDevKey = await f.prove(placed, recipient);
    vaultBefore = f.world.vaultBalance();
  }, SLOW);

  /** Refused InvalidProof; nothing left the vault and the proof's nullifier is unspent. */
  function expectInvalidProof(params: WithdrawParams, signers: Keypair[]): void {
    const r = f.world.send([withdrawInstruction(params)], signers);
    expectPoolError(r, 0, "InvalidProof");
    expect(f.world.vaultBalance()).toBe(vaultBefore);
    expect(f.world.exists(poolNullifierAddress(PROGRAM, MINT, params.nullifierHash))).toBe(false);
  }

  it("is a different program from the committed one, for a key that is not the development key's", async () => {
    expect(build.fingerprint).toBe(key.fingerprint);
    expect(Buffer.from(build.so).equals(readFileSync(POOL_SO))).toBe(false);
    // The two proofs are for the same withdrawal: the same public inputs, different keys.
    expect(withNewKey.publicSignals).toEqual(withDevKey.publicSignals);
    expect(await verifyWithdrawalProof(withDevKey.proof, withDevKey.publicSignals, key.vkeyPath)).toEqual({ ok: true, value: false });
  });

  it("refuses a real proof made with the development zkey for the same withdrawal (InvalidProof)", () => {
    expectInvalidProof(f.withdrawParams(withDevKey), [f.relayer]);
  });

  it("refuses a proof forged from the development key's toxic waste (InvalidProof)", async () => {
    const { attacker, params } = await forgedWithdrawal(f.world, vaultBefore);
    expect(await verifyWithdrawalProof(params.proof, withdrawalSignals(params), key.vkeyPath)).toEqual({ ok: true, value: false });
    expectInvalidProof(params, [attacker]);
  });

  it("withdraws with a real proof made with the new zkey: the recipient is paid, the relayer gets the fee", () => {
    const relayerAccount = ata(f.relayer.publicKey.toBase58(), MINT);
    const feeBefore = f.world.balance(relayerAccount);
    const r = f.world.send([withdrawInstruction(f.withdrawParams(withNewKey))], [f.relayer]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    expect(f.world.balance(ata(recipient, MINT))).toBe(5n * SOL - FEE);
    expect(f.world.balance(relayerAccount)).toBe(feeBefore + FEE);
    expect(f.world.vaultBalance()).toBe(vaultBefore - 5n * SOL);
    expect(f.world.exists(poolNullifierAddress(PROGRAM, MINT, withNewKey.nullifierHash))).toBe(true);
  });

  /** The public signals the program computes for these withdraw parameters (fee 0, no swap, as forged). */
  function withdrawalSignals(p: WithdrawParams): string[] {
    const s = withdrawalPublicSignals(f.world.hasher, { ...p, swap: null });
    if (!s.ok) throw new Error(s.error.message);
    return s.value;
  }
});
