/**
 * The sandbox chain with its frontier lane (adapters/frontier-lane): deposits'
 * pairs hashed on another thread and taken only when they fit. The chain with a
 * lane must answer, store and root exactly as the chain without one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import nacl from "tweetnacl";
import { afterAll, describe, expect, it } from "vitest";
import { signEd25519 } from "../../../src-shared/crypto/ed25519";
import { pubkeyToField } from "../../../src-shared/crypto/pubkey-field";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { sandboxDepositMessage } from "../../../src-shared/messages";
import type { WithdrawalSubmission } from "../../ports/chain";
import type { ProofVerifier } from "../../ports/proof-verifier";
import { FrontierLane } from "../frontier-lane/lane";
import { Signer } from "../../../src-shared/node/keypair-file";
import { PREBUILT_WASM } from "../poseidon-fast/fast-hasher";
import { DurableDb } from "../storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../storage-sqljs/schema-migrations";
import type { SandboxDepositRequest } from "../../ports/sandbox-ledger";
import { SandboxChain } from "./sandbox-chain";
import { countingHasher } from "../../../tests/support/counting-hasher";

const PROGRAM = new Uint8Array(32).fill(3);
const relayer = new Signer(nacl.sign.keyPair().secretKey);
const verifier: ProofVerifier = { verify: async () => false, close: async () => {} };
/** For withdrawals here: what is under test is where their change leaves go, not their proofs. */
const accepting: ProofVerifier = { verify: async () => true, close: async () => {} };
const dirs: string[] = [];
const dbs: DurableDb[] = [];
const lanes: FrontierLane[] = [];
afterAll(async () => {
  for (const l of lanes) await l.close();
  for (const d of dbs) await d.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function chainWith(lane: boolean, proofs: ProofVerifier = verifier) {
  const dir = mkdtempSync(path.join(tmpdir(), "sandbox-lane-"));
  dirs.push(dir);
  const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS });
  dbs.push(db);
  const c = await countingHasher();
  let l: FrontierLane | null = null;
  if (lane) {
    l = new FrontierLane({ wasmPlaces: [PREBUILT_WASM] }, () => {});
    lanes.push(l);
    l.start();
    expect(await l.ready).toBe(true);
  }
  const chain = new SandboxChain("mainnet", db, c.hasher, relayer, PROGRAM, proofs, undefined, l);
  // The mint's field element (one pair, remembered per hasher) is not a frontier pair: count from after it.
  pubkeyToField(c.hasher, MINT.mintBytes);
  return { chain, pairs: c.pairs, lane: l };
}

const mintKey = nacl.sign.keyPair().publicKey;
const MINT = { mint: encodeBase58(mintKey), mintBytes: mintKey };
const wallets = Array.from({ length: 4 }, () => nacl.sign.keyPair());

function request(w: nacl.SignKeyPair, amount: bigint, seed: number): SandboxDepositRequest {
  const precommitment = new Uint8Array(32);
  precommitment[31] = seed;
  precommitment[5] = 1;
  return {
    ...MINT,
    amount,
    precommitment,
    wallet: encodeBase58(w.publicKey),
    walletBytes: w.publicKey,
    signature: signEd25519(sandboxDepositMessage("mainnet", MINT.mint, amount, precommitment), w.secretKey),
  };
}

async function funded(lane: boolean, balance: bigint, proofs?: ProofVerifier) {
  const c = await chainWith(lane, proofs);
  await c.chain.initializePool(MINT.mint);
  for (const w of wallets) await c.chain.airdrop(encodeBase58(w.publicKey), MINT.mint, balance);
  return c;
}

const summary = (r: Awaited<ReturnType<SandboxChain["deposit"]>>) => (r.ok ? { status: r.value.status, leafIndex: r.value.leafIndex } : { error: r.error });

describe("SandboxChain with a frontier lane", () => {
  it("answers concurrent deposits as the chain without a lane does, hashing none of their frontier pairs on the event loop", async () => {
    const [withLane, without] = [await funded(true, 1_000n), await funded(false, 1_000n)];
    const reqs = Array.from({ length: 24 }, (_, i) => request(wallets[i % 4]!, 10n, i + 1));
    const before = withLane.pairs();
    const a = await Promise.all(reqs.map((r) => withLane.chain.deposit(r)));
    const b = await Promise.all(reqs.map((r) => without.chain.deposit(r)));
    expect(a.map(summary)).toEqual(b.map(summary));
    expect(a.map(summary).map((s) => (s as { leafIndex: number }).leafIndex)).toEqual(reqs.map((_, i) => i));
    expect(await withLane.chain.treeAccount(MINT.mint)).toEqual(await without.chain.treeAccount(MINT.mint));
    expect(withLane.pairs() - before).toBe(0);
    expect(withLane.lane!.stats()).toMatchObject({ state: "ready", inserts: 24, unanswered: 0 });
  });

  it("keeps the right roots when a deposit whose leaf went to the lane is refused, and the lane serves the next ones again", async () => {
    const [withLane, without] = [await funded(true, 10n), await funded(false, 10n)];
    // wallets[0] can pay one of its two deposits: the second is refused after its leaf reached the lane.
    const burst = [request(wallets[0]!, 10n, 1), request(wallets[0]!, 10n, 2), request(wallets[1]!, 10n, 3), request(wallets[2]!, 10n, 4)];
    const a = await Promise.all(burst.map((r) => withLane.chain.deposit(r)));
    const b = await Promise.all(burst.map((r) => without.chain.deposit(r)));
    expect(a.map(summary)).toEqual(b.map(summary));
    expect(a.map(summary)).toEqual([
      { status: "indexed", leafIndex: 0 },
      { error: "InsufficientFunds" },
      { status: "indexed", leafIndex: 1 },
      { status: "indexed", leafIndex: 2 },
    ]);
    expect(await withLane.chain.treeAccount(MINT.mint)).toEqual(await without.chain.treeAccount(MINT.mint));

    // The lane got the tree back: a later deposit's pairs all come from it.
    const before = withLane.pairs();
    const later = request(wallets[3]!, 10n, 5);
    expect(summary(await withLane.chain.deposit(later))).toEqual(summary(await without.chain.deposit(later)));
    expect(withLane.pairs() - before).toBe(0);
    expect(await withLane.chain.treeAccount(MINT.mint)).toEqual(await without.chain.treeAccount(MINT.mint));
  });

  it("refuses a deposit with a bad signature before its leaf reaches the lane, and roots as the chain without a lane", async () => {
    const [withLane, without] = [await funded(true, 100n), await funded(false, 100n)];
    const forged = { ...request(wallets[0]!, 10n, 2), walletBytes: wallets[1]!.publicKey, wallet: encodeBase58(wallets[1]!.publicKey) };
    const burst = [request(wallets[0]!, 10n, 1), forged, request(wallets[2]!, 10n, 3)];
    const a = await Promise.all(burst.map((r) => withLane.chain.deposit(r)));
    const b = await Promise.all(burst.map((r) => without.chain.deposit(r)));
    expect(a.map(summary)).toEqual([{ status: "indexed", leafIndex: 0 }, { error: "InvalidSignature" }, { status: "indexed", leafIndex: 1 }]);
    expect(a.map(summary)).toEqual(b.map(summary));
    expect(await withLane.chain.treeAccount(MINT.mint)).toEqual(await without.chain.treeAccount(MINT.mint));
  });

  it("keeps the right roots when a deposit's leaf is already in the tree (a failed deposit the lane inserted anyway)", async () => {
    const [withLane, without] = [await funded(true, 100n), await funded(false, 100n)];
    const burst = [request(wallets[0]!, 10n, 7), request(wallets[1]!, 10n, 7), request(wallets[2]!, 10n, 8)];
    const a = await Promise.all(burst.map((r) => withLane.chain.deposit(r)));
    const b = await Promise.all(burst.map((r) => without.chain.deposit(r)));
    expect(a.map(summary)).toEqual([
      { status: "indexed", leafIndex: 0 },
      { status: "failed", leafIndex: null },
      { status: "indexed", leafIndex: 1 },
    ]);
    expect(a.map(summary)).toEqual(b.map(summary));
    expect(await withLane.chain.treeAccount(MINT.mint)).toEqual(await without.chain.treeAccount(MINT.mint));
  });

  it("hashes on the event loop, with the same answers, when its lane is down", async () => {
    const [withLane, without] = [await funded(true, 100n), await funded(false, 100n)];
    await withLane.lane!.close();
    const reqs = [request(wallets[0]!, 10n, 1), request(wallets[1]!, 10n, 2)];
    const before = withLane.pairs();
    const a = await Promise.all(reqs.map((r) => withLane.chain.deposit(r)));
    const b = await Promise.all(reqs.map((r) => without.chain.deposit(r)));
    expect(a.map(summary)).toEqual(b.map(summary));
    expect(withLane.pairs() - before).toBe(64);
    expect(await withLane.chain.treeAccount(MINT.mint)).toEqual(await without.chain.treeAccount(MINT.mint));
  });

  it("inserts withdrawals' change leaves through the lane in order with deposits, rooting as the chain without a lane", async () => {
    const [withLane, without] = [await funded(true, 1_000n, accepting), await funded(false, 1_000n, accepting)];
    const first = [request(wallets[0]!, 100n, 1), request(wallets[1]!, 100n, 2)];
    for (const c of [withLane, without]) for (const r of first) await c.chain.deposit(r);
    const root = (await withLane.chain.treeAccount(MINT.mint))!.root;
    const withdrawal = (i: number): WithdrawalSubmission => {
      const changeCommitment = new Uint8Array(32);
      changeCommitment[31] = 100 + i;
      changeCommitment[3] = 2;
      return {
        ...MINT,
        recipient: encodeBase58(wallets[3]!.publicKey),
        root,
        nullifierHash: new Uint8Array(32).fill(i),
        proof: new Uint8Array(256),
        depositSize: 10n,
        changeCommitment,
        fee: 0n,
      };
    };
    const mixed: (SandboxDepositRequest | WithdrawalSubmission)[] = [request(wallets[2]!, 10n, 3), withdrawal(1), request(wallets[2]!, 10n, 4), withdrawal(2)];
    const run = (c: { chain: SandboxChain }) =>
      Promise.all(
        mixed.map(async (x) => {
          if ("precommitment" in x) return summary(await c.chain.deposit(x));
          const r = await c.chain.submitWithdrawal(x);
          return r.ok ? { change: r.changeLeafIndex } : { error: r.rejection };
        }),
      );
    const insertsBefore = withLane.lane!.stats().inserts;
    const a = await run(withLane);
    const b = await run(without);
    expect(a).toEqual(b);
    // Deposits are applied in the order they came; a withdrawal's leaf follows once its proof is checked.
    expect(a).toEqual([{ status: "indexed", leafIndex: 2 }, { change: 4 }, { status: "indexed", leafIndex: 3 }, { change: 5 }]);
    expect(await withLane.chain.treeAccount(MINT.mint)).toEqual(await without.chain.treeAccount(MINT.mint));
    expect(withLane.lane!.stats()).toMatchObject({ inserts: insertsBefore + 4, unanswered: 0 });

    // The lane's copy is the tree's: a later deposit is still hashed there only.
    const before = withLane.pairs();
    const later = request(wallets[0]!, 10n, 9);
    expect(summary(await withLane.chain.deposit(later))).toEqual(summary(await without.chain.deposit(later)));
    expect(withLane.pairs() - before).toBe(0);
    expect(await withLane.chain.treeAccount(MINT.mint)).toEqual(await without.chain.treeAccount(MINT.mint));
  });
});
