/**
 * The pool program built for another key (build:programs --vkey, as a ceremony's finalize builds
 * it) on the local validator (issue 26): deployed over the development build at the pool's
 * program id (an upgrade: the tree and vault stay), it refuses a real proof made with the
 * development zkey and a proof forged from the development key's toxic waste (InvalidProof),
 * and pays a real proof made with its own zkey. The LiteSVM twin, with the development build's
 * drained vault, is pool-ceremony-key.test.ts.
 */
import { randomBytes } from "node:crypto";
import { ComputeBudgetProgram, Keypair, PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPoolForKey } from "../../tools/sbf/build";
import { findClang, INSTALL_HINT } from "../../tools/sbf/compile";
import { noteLeafIndex } from "../../src-client/sdk/note";
import { proveWithdrawal, verifyWithdrawalProof, withdrawalPublicSignals, type WithdrawalProof } from "../../src-client/sdk/prove";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { FIELD_MODULUS, bigIntToBytes32, bytesToBigInt } from "../../src-shared/encoding/field";
import {
  associatedTokenAddress,
  decodeTreeAccount,
  poolTreeAddress,
  poolVaultAddress,
  withdrawInstruction,
  type WithdrawParams,
} from "../../src-shared/pool-program";
import { encodeProof, fromSnarkjs } from "../../src-shared/zk/proof-codec";
import { ceremonyProver, ceremonyTestKey, type CeremonyTestKey } from "../../tests/support/ceremony-key";
import { forgeDevProof } from "../../tests/support/forge-dev-proof";
import { FEE, MINT, PROGRAM, SOL, recipientOf, startFixturePool, type FixturePool } from "../../tests/support/localnet-pool";

const clang = findClang();
if (!clang) console.warn(`SKIPPED programs/pool/pool-ceremony-key.localnet.test.ts: clang not found (${INSTALL_HINT})`);
// The validator, seven deposits, the test key (once per checkout), a build, two proofs (cached).
const SLOW = 300_000;
/** The pool's InvalidProof (6000) as the RPC's preflight reports it. */
const INVALID_PROOF = /custom program error: 0x1770/;

const madeUpField = (): Uint8Array => bigIntToBytes32(bytesToBigInt(randomBytes(32)) % FIELD_MODULUS);

describe.skipIf(!clang)("a pool program built for another key, on the local validator", () => {
  let fp: FixturePool;
  let key: CeremonyTestKey;
  const recipient = recipientOf("ceremony key");
  let withNewKey: WithdrawalProof;
  let withDevKey: WithdrawalProof;

  const params = (p: WithdrawalProof): WithdrawParams => ({
    programId: PROGRAM,
    relayer: p.relayer,
    mint: MINT,
    proof: p.proof,
    root: p.root,
    nullifierHash: p.nullifierHash,
    recipient: p.recipient,
    amount: p.amount,
    fee: p.fee,
    changeCommitment: p.changeCommitment,
  });
  const withBudget = (ix: TransactionInstruction): TransactionInstruction[] => [ComputeBudgetProgram.setComputeUnitLimit({ units: 400_000 }), ix];
  const vault = (): Promise<bigint> => fp.balance(poolVaultAddress(PROGRAM, MINT));

  beforeAll(async () => {
    key = await ceremonyTestKey();
    const build = buildPoolForKey({ vkey: { path: key.vkeyPath } });
    fp = await startFixturePool();
    await fp.validator.mintTo(fp.relayer.address, MINT, 0n); // the fee's receiver, which withdraw wants to exist
    withDevKey = (await fp.prove(fp.notes[0]!, recipient)).proof;
    await fp.validator.deployProgram(build.so);
    // The same withdrawal proved with the new zkey, over the tree the chain holds.
    const note = fp.notes[0]!;
    const tree = new MerkleTree(fp.hasher);
    for (const e of await fp.leafEvents()) {
      const r = tree.append(e.commitment);
      if (!r.ok) throw new Error(r.error);
    }
    const path = tree.proof(noteLeafIndex(note)!);
    if (!path.ok) throw new Error(path.error);
    const proved = await proveWithdrawal(note, { root: tree.root(), path: path.value.path, indices: path.value.indices }, recipient, {
      relayer: fp.relayer.address,
      fee: FEE,
      hasher: fp.hasher,
      wasmPath: key.wasmPath,
      zkeyPath: key.zkeyPath,
      prover: ceremonyProver(key),
    });
    if (!proved.ok) throw new Error(`${proved.error.kind}: ${proved.error.message}`);
    withNewKey = proved.value;
    expect(withNewKey.publicSignals).toEqual(withDevKey.publicSignals);
  }, SLOW);

  afterAll(async () => {
    await fp?.close();
  });

  it("refuses a real proof made with the development zkey (InvalidProof)", async () => {
    const before = await vault();
    await expect(fp.send(withBudget(withdrawInstruction(params(withDevKey))), [fp.relayerKey])).rejects.toThrow(INVALID_PROOF);
    expect(await vault()).toBe(before);
  });

  it("refuses a proof forged from the development key's toxic waste for an invented nullifier and the whole vault (InvalidProof)", async () => {
    const before = await vault();
    const attacker = Keypair.generate();
    await fp.validator.airdrop(attacker.publicKey.toBase58(), 2n * SOL);
    await fp.validator.mintTo(attacker.publicKey.toBase58(), MINT, 1n); // its token account, which withdraw wants for the fee
    const treeInfo = await fp.rpc.getAccountInfo(new PublicKey(poolTreeAddress(PROGRAM, MINT)));
    const t = decodeTreeAccount(Uint8Array.from(treeInfo!.data));
    if (!t.ok) throw new Error(t.error);
    const attack = {
      root: t.value.roots[t.value.currentRootIndex]!,
      nullifierHash: madeUpField(),
      recipient: attacker.publicKey.toBase58(),
      amount: before,
      mint: MINT,
      relayer: attacker.publicKey.toBase58(),
      fee: 0n,
      swap: null,
      changeCommitment: madeUpField(),
    };
    const signals = withdrawalPublicSignals(fp.hasher, attack);
    if (!signals.ok) throw new Error(signals.error.message);
    const proof = encodeProof(fromSnarkjs(await forgeDevProof(signals.value)));
    expect(await verifyWithdrawalProof(proof, signals.value)).toEqual({ ok: true, value: true }); // the development key accepts it
    const { swap: _swap, ...rest } = attack;
    await expect(fp.send(withBudget(withdrawInstruction({ programId: PROGRAM, proof, ...rest })), [attacker])).rejects.toThrow(INVALID_PROOF);
    expect(await vault()).toBe(before);
  });

  it("pays a real proof made with its own zkey", async () => {
    const before = await vault();
    await fp.send(withBudget(withdrawInstruction(params(withNewKey))), [fp.relayerKey]);
    expect(await vault()).toBe(before - withNewKey.amount);
    expect(await fp.balance(associatedTokenAddress(recipient, MINT))).toBe(withNewKey.amount - FEE);
    expect(await fp.balance(associatedTokenAddress(fp.relayer.address, MINT))).toBe(FEE);
  });
});
