import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signEd25519 } from "../../../src-shared/crypto/ed25519";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { encodeBase58, parsePublicKey, parseSignature } from "../../../src-shared/encoding/base58";
import { sandboxDepositMessage } from "../../../src-shared/messages";
import { vaultAddress } from "../../../src-shared/solana/pda";
import { revertNullifierOf } from "../../core/revert/nullifier";
import { Signer } from "../../../src-shared/node/keypair-file";
import { DurableDb } from "../storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../storage-sqljs/schema-migrations";
import { SandboxChain } from "./sandbox-chain";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const PROGRAM = parsePublicKey("FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ");
const mintBytes = parsePublicKey(MINT);

let dir: string;
let db: DurableDb;
let chain: SandboxChain;
const hasherP = createPoseidonHasher();

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-revert-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS });
  const verifier = { verify: async () => false, close: async () => {} };
  chain = new SandboxChain("mainnet", db, await hasherP, new Signer(nacl.sign.keyPair().secretKey), PROGRAM.ok ? PROGRAM.value : new Uint8Array(32), verifier);
  await chain.initializePool(MINT);
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface W {
  address: string;
  bytes: Uint8Array;
  secret: Uint8Array;
}
const wallet = (): W => {
  const kp = nacl.sign.keyPair();
  return { address: encodeBase58(kp.publicKey), bytes: kp.publicKey, secret: kp.secretKey };
};
const deposit = async (w: W, amount: bigint, precommitment: Uint8Array): Promise<string> => {
  const r = await chain.deposit({
    mint: MINT,
    mintBytes: mintBytes.ok ? mintBytes.value : new Uint8Array(32),
    amount,
    precommitment,
    wallet: w.address,
    walletBytes: w.bytes,
    signature: signEd25519(sandboxDepositMessage("mainnet", MINT, amount, precommitment), w.secret),
  });
  if (!r.ok) throw new Error(r.error);
  return r.value.signature;
};
const vault = (): string => vaultAddress(PROGRAM.ok ? PROGRAM.value : new Uint8Array(32), mintBytes.ok ? mintBytes.value : new Uint8Array(32));

describe("SandboxChain.revertDeposit", () => {
  it("pays a failed deposit back exactly once when ten reverts race, spends the revert-nullifier and marks it reverted", async () => {
    const w = wallet();
    await chain.airdrop(w.address, MINT, 1000n);
    const sig = await deposit(w, 700n, new Uint8Array(32)); // a zero precommitment: failed
    expect(await chain.findDeposit(sig)).toMatchObject({ status: "failed", depositor: w.address, amount: 700n, mint: MINT });
    const vaultBefore = chain.balance(vault(), MINT);
    expect(chain.balance(w.address, MINT)).toBe(300n);

    const results = await Promise.all(Array.from({ length: 10 }, () => chain.revertDeposit({ depositSignature: sig, depositor: w.address })));
    const landed = results.filter((r) => r.ok);
    expect(landed).toHaveLength(1);
    expect(landed[0]).toMatchObject({ ok: true, amount: 700n, mint: MINT, signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/) });
    for (const r of results.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, rejection: "NullifierSpent" });

    expect(chain.balance(w.address, MINT)).toBe(1000n);
    expect(chain.balance(vault(), MINT)).toBe(vaultBefore - 700n);
    expect((await chain.findDeposit(sig))?.status).toBe("reverted");
    const sigBytes = parseSignature(sig);
    expect(sigBytes.ok && (await chain.isNullifierSpent(MINT, revertNullifierOf(await hasherP, sigBytes.value)))).toBe(true);
    expect(await chain.revertDeposit({ depositSignature: sig, depositor: w.address })).toMatchObject({ ok: false, rejection: "NullifierSpent" });
  });

  it("refuses an unknown deposit, another wallet and an indexed deposit, moving nothing", async () => {
    const w = wallet();
    await chain.airdrop(w.address, MINT, 1000n);
    const failed = await deposit(w, 100n, new Uint8Array(32).fill(255));
    const precommitment = new Uint8Array(32);
    precommitment[31] = 42;
    const indexed = await deposit(w, 100n, precommitment);
    const vaultBefore = chain.balance(vault(), MINT);

    expect(await chain.revertDeposit({ depositSignature: encodeBase58(new Uint8Array(64).fill(1)), depositor: w.address })).toMatchObject({
      ok: false,
      rejection: "DepositNotFound",
    });
    expect(await chain.revertDeposit({ depositSignature: failed, depositor: wallet().address })).toMatchObject({ ok: false, rejection: "NotDepositor" });
    expect(await chain.revertDeposit({ depositSignature: indexed, depositor: w.address })).toMatchObject({ ok: false, rejection: "AlreadyIndexed" });
    expect(chain.balance(w.address, MINT)).toBe(800n);
    expect(chain.balance(vault(), MINT)).toBe(vaultBefore);
  });

  it("keeps the revert across a reopen of the ledger", async () => {
    const w = wallet();
    await chain.airdrop(w.address, MINT, 50n);
    const sig = await deposit(w, 50n, new Uint8Array(32));
    expect((await chain.revertDeposit({ depositSignature: sig, depositor: w.address })).ok).toBe(true);
    const verifier = { verify: async () => false, close: async () => {} };
    const again = new SandboxChain(
      "mainnet",
      db,
      await hasherP,
      new Signer(nacl.sign.keyPair().secretKey),
      PROGRAM.ok ? PROGRAM.value : new Uint8Array(32),
      verifier,
    );
    expect(await again.revertDeposit({ depositSignature: sig, depositor: w.address })).toMatchObject({ ok: false, rejection: "NullifierSpent" });
    expect(again.balance(w.address, MINT)).toBe(50n);
  });
});
