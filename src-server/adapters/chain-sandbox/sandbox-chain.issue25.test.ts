/**
 * Issue 25 in the sandbox chain, which plays the pool program's rules: the
 * 1,000-root ring (kept across a restart, stored a slot per insert), the
 * pool's minimum deposit, and a revert lowering totalDeposited. The verifier
 * accepts every proof, so a withdrawal's only question here is its root.
 */
import { createPrivateKey, sign, type KeyObject } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { encodeBase58, parsePublicKey } from "../../../src-shared/encoding/base58";
import { toHex } from "../../../src-shared/encoding/bytes";
import { bigIntToBytes32 } from "../../../src-shared/encoding/field";
import { sandboxDepositMessage } from "../../../src-shared/messages";
import { vaultAddress } from "../../../src-shared/solana/pda";
import { FrontierTree, rootsFromRing } from "../../core/merkle/frontier";
import { ROOT_HISTORY_SIZE } from "../../core/merkle/tree";
import type { WithdrawalSubmission } from "../../ports/chain";
import { Signer } from "../../../src-shared/node/keypair-file";
import { DurableDb } from "../storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../storage-sqljs/schema-migrations";
import { SandboxChain } from "./sandbox-chain";

const PROGRAM = key("FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ");
const acceptAll = { verify: async () => true, close: async () => {} };

function key(s: string): Uint8Array {
  const r = parsePublicKey(s);
  if (!r.ok) throw new Error(s);
  return r.value;
}
interface Wallet {
  address: string;
  bytes: Uint8Array;
  /** Node's signer: a thousand deposits are signed here, where tweetnacl takes milliseconds each. */
  key: KeyObject;
}
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const newWallet = (): Wallet => {
  const kp = nacl.sign.keyPair();
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, kp.secretKey.subarray(0, 32)]), format: "der", type: "pkcs8" });
  return { address: encodeBase58(kp.publicKey), bytes: kp.publicKey, key };
};

let dir: string;
let db: DurableDb;
let hasher: FieldHasher;
let chain: SandboxChain;
const relayer = new Signer(nacl.sign.keyPair().secretKey);
/** Minimums by mint, read by the chain on every deposit (as config would give them). */
const minimums = new Map<string, bigint>();
const open = (): SandboxChain => new SandboxChain("mainnet", db, hasher, relayer, PROGRAM, acceptAll, undefined, null, (mint) => minimums.get(mint) ?? 1n);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-issue25-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS });
  hasher = await createPoseidonHasher();
  chain = open();
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

let seed = 1n;
const fresh = (): Uint8Array => hasher.hash([bigIntToBytes32(seed++), bigIntToBytes32(7n)]);

function freshMint(): { mint: string; mintBytes: Uint8Array } {
  const k = newWallet();
  return { mint: k.address, mintBytes: k.bytes };
}

async function deposit(c: SandboxChain, m: { mint: string; mintBytes: Uint8Array }, w: Wallet, amount: bigint, precommitment = fresh()) {
  return c.deposit({
    ...m,
    amount,
    precommitment,
    wallet: w.address,
    walletBytes: w.bytes,
    signature: new Uint8Array(sign(null, Buffer.from(sandboxDepositMessage("mainnet", m.mint, amount, precommitment)), w.key)),
  });
}

function withdrawal(m: { mint: string; mintBytes: Uint8Array }, root: Uint8Array): WithdrawalSubmission {
  return {
    ...m,
    recipient: newWallet().address,
    root,
    nullifierHash: fresh(),
    proof: new Uint8Array(256),
    depositSize: 1n,
    changeCommitment: fresh(),
    fee: 0n,
  };
}

async function rootNow(c: SandboxChain, mint: string): Promise<Uint8Array> {
  const t = await c.treeAccount(mint);
  if (!t) throw new Error("no pool");
  return t.root;
}

describe("SandboxChain root ring (issue 25)", () => {
  it("accepts a root while it is among the last 1,000 (999 inserts later) and refuses it with InvalidRoot once the 1,000th insert after it pushed it out, also after a restart", async () => {
    expect(ROOT_HISTORY_SIZE).toBe(1000);
    const m = freshMint();
    const w = newWallet();
    await chain.airdrop(w.address, m.mint, 10_000n);
    // Sent together, applied in order: one group commit of the ledger instead of 1,000 fsyncs.
    for (let batch = 0; batch < 10; batch++) {
      const landed = await Promise.all(Array.from({ length: 100 }, () => deposit(chain, m, w, 1n)));
      for (const d of landed) if (!d.ok || d.value.status !== "indexed") throw new Error(JSON.stringify(d));
    }
    // The root after each leaf, from the pool's own leaf events replayed into a frontier of our own.
    const replay = new FrontierTree(hasher);
    const roots: Uint8Array[] = [];
    for (const e of (await chain.fetchLeafEvents(m.mint, null, 2000)).events) {
      replay.insert(e.commitment);
      roots.push(replay.root());
    }
    expect(roots).toHaveLength(1000);
    expect(toHex(roots[999]!)).toBe(toHex(await rootNow(chain, m.mint)));
    // roots[k]: the root after k + 1 leaves. The ring holds roots[0..999]: the oldest is 999 inserts old.
    expect(await chain.submitWithdrawal(withdrawal(m, roots[0]!))).toMatchObject({ ok: true, changeLeafIndex: 1000 });
    // That withdrawal's change leaf was the 1,000th insert after roots[0]: it is gone, roots[1] is the oldest left.
    expect(await chain.submitWithdrawal(withdrawal(m, roots[0]!))).toMatchObject({ ok: false, rejection: "InvalidRoot" });

    // The ledger keeps the ring slot by slot: a chain reopened from it knows exactly the same roots.
    const row = db.get<{ roots: Uint8Array; next_index: number }>("SELECT roots, next_index FROM sandbox_pools WHERE network = 'mainnet' AND mint = ?", [
      m.mint,
    ]);
    expect(row?.roots.length).toBe(1000 * 32);
    const stored = rootsFromRing(row!.roots, row!.next_index);
    expect(toHex(stored.subarray(0, 32 * 999))).toBe(roots.slice(1).map(toHex).join(""));
    expect(toHex(stored.subarray(32 * 999))).toBe(toHex(await rootNow(chain, m.mint)));
    const reopened = open();
    expect(await reopened.submitWithdrawal(withdrawal(m, roots[0]!))).toMatchObject({ ok: false, rejection: "InvalidRoot" });
    expect(await reopened.submitWithdrawal(withdrawal(m, roots[1]!))).toMatchObject({ ok: true, changeLeafIndex: 1001 });
    chain = reopened;
  });

  it("reads the oldest-first list of roots a ledger from before the ring holds, and stores the ring from the next insert on", async () => {
    const m = freshMint();
    const w = newWallet();
    await chain.airdrop(w.address, m.mint, 100n);
    const roots: Uint8Array[] = [];
    for (let i = 0; i < 3; i++) {
      const d = await deposit(chain, m, w, 10n);
      if (!d.ok) throw new Error(d.error);
      roots.push(await rootNow(chain, m.mint));
    }
    // As a pool row looked before issue 25: the roots oldest first, 32 bytes each.
    const legacy = new FrontierTree(hasher);
    const events = await chain.fetchLeafEvents(m.mint, null, 10);
    for (const e of events.events) legacy.insert(e.commitment);
    const state = legacy.state();
    await db.write([{ sql: "UPDATE sandbox_pools SET roots = ? WHERE network = 'mainnet' AND mint = ?", params: [state.roots, m.mint] }]);
    expect(state.roots.length).toBe(3 * 32);

    const reopened = open();
    expect(await reopened.submitWithdrawal(withdrawal(m, roots[0]!))).toMatchObject({ ok: true, changeLeafIndex: 3 });
    const row = db.get<{ roots: Uint8Array }>("SELECT roots FROM sandbox_pools WHERE network = 'mainnet' AND mint = ?", [m.mint]);
    expect(row?.roots.length).toBe(1000 * 32);
    const again = open();
    for (const r of roots) expect(await again.submitWithdrawal(withdrawal(m, r))).toMatchObject({ ok: true });
    chain = again;
  });
});

describe("SandboxChain minimum deposit (issue 25)", () => {
  it("refuses a deposit below the pool's minimum with DepositBelowMinimum, moving nothing and inserting nothing; the minimum itself lands", async () => {
    const m = freshMint();
    minimums.set(m.mint, 10_000_000n);
    const w = newWallet();
    await chain.airdrop(w.address, m.mint, 30_000_000n);
    const vault = vaultAddress(PROGRAM, m.mintBytes);
    expect(chain.minDeposit(m.mint)).toBe(10_000_000n);
    expect(await deposit(chain, m, w, 9_999_999n)).toEqual({ ok: false, error: "DepositBelowMinimum" });
    expect(chain.balance(w.address, m.mint)).toBe(30_000_000n);
    expect(chain.balance(vault, m.mint)).toBe(0n);
    expect(await chain.treeAccount(m.mint)).toBeNull();
    expect(await deposit(chain, m, w, 10_000_000n)).toMatchObject({ ok: true, value: { status: "indexed", leafIndex: 0 } });
    expect(chain.balance(vault, m.mint)).toBe(10_000_000n);
  });

  it("takes any positive amount in a pool with no configured minimum", async () => {
    const m = freshMint();
    const w = newWallet();
    await chain.airdrop(w.address, m.mint, 1n);
    expect(chain.minDeposit(m.mint)).toBe(1n);
    expect(await deposit(chain, m, w, 1n)).toMatchObject({ ok: true, value: { status: "indexed" } });
  });
});

describe("SandboxChain totalDeposited (issue 25)", () => {
  it("lowers totalDeposited by what a revert returned, counting the deposit still", async () => {
    const m = freshMint();
    const w = newWallet();
    await chain.airdrop(w.address, m.mint, 1000n);
    const pre = fresh();
    expect(await deposit(chain, m, w, 600n, pre)).toMatchObject({ ok: true, value: { status: "indexed" } });
    // The same note again: its leaf is already in the tree, so the deposit fails and may be reverted.
    const failed = await deposit(chain, m, w, 300n, new Uint8Array(32));
    if (!failed.ok) throw new Error(failed.error);
    expect(failed.value.status).toBe("failed");
    expect(chain.poolTotals(m.mint)).toEqual({ totalDeposited: 900n, depositCount: 2, minDeposit: 1n });
    expect(await chain.revertDeposit({ depositSignature: failed.value.signature, depositor: w.address })).toMatchObject({ ok: true, amount: 300n });
    expect(chain.poolTotals(m.mint)).toEqual({ totalDeposited: 600n, depositCount: 2, minDeposit: 1n });
  });
});
