/**
 * The deposit history and the chain follower against the local validator
 * (src-localnet) over real JSON-RPC and websocket with an unmodified web3.js
 * Connection: real signed deposit transactions, an IndexerService on the real
 * sql.js store, roots compared with the on-chain TreeAccount.
 */
import { randomBytes } from "node:crypto";
import { Connection, Keypair, PublicKey, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { toHex } from "../../../src-shared/encoding/bytes";
import { FIELD_MODULUS, bigIntToBytes32, bytesToBigInt } from "../../../src-shared/encoding/field";
import type { Network } from "../../../src-shared/networks";
import {
  DEFAULT_POOL_PROGRAM_ID,
  currentRoot,
  decodeTreeAccount,
  depositCommitment,
  depositInstruction,
  initializePoolInstructions,
  poolTreeAddress,
} from "../../../src-shared/pool-program";
import { startLocalValidator, type LocalValidator } from "../../../src-localnet/validator";
import type { ChainBackend, LeafEventPage, TreeAccount } from "../../ports/chain";
import { ChainFollower } from "../../services/chain-follower";
import { IndexerService } from "../../services/indexer";
import { DurableDb } from "../storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../storage-sqljs/tree-store";
import { fetchLeafEventsPage } from "./deposit-history";
import { solanaPoolSubscriber } from "./follower-subscribe";
import { tempDirs } from "../../../tests/support/temp-dirs";

const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const TREE = poolTreeAddress(PROGRAM, USDC);
const NETWORK: Network = "mainnet";
const SOL = 1_000_000_000;
const AMOUNT = 1_000_000n;
/** Deposits inserted by the history made in beforeAll. */
const TOTAL = 324;

/**
 * The ChainBackend parts the indexer uses, on fetchLeafEventsPage and the
 * tree account (the full SolanaChain is another module); `tweak` lets a test
 * cap pages, fail, or lie.
 */
class HistoryChain implements ChainBackend {
  readonly feePayer = "11111111111111111111111111111111";
  readonly network = NETWORK;
  readonly kind = "solana" as const;
  readonly cursors: (string | null)[] = [];
  events = 0;

  constructor(
    readonly connection: Connection,
    private readonly tweak: {
      pageLimit?: number;
      failAfterPages?: number;
      page?: (p: LeafEventPage) => LeafEventPage;
      account?: (a: TreeAccount) => TreeAccount;
    } = {},
  ) {}

  async listPools(): Promise<string[]> {
    return (await this.connection.getAccountInfo(new PublicKey(TREE), "confirmed")) ? [USDC] : [];
  }

  async fetchLeafEvents(mint: string, cursor: string | null, limit: number): Promise<LeafEventPage> {
    if (this.tweak.failAfterPages !== undefined && this.cursors.length >= this.tweak.failAfterPages) throw new Error("stopped mid-backfill");
    this.cursors.push(cursor);
    const page = await fetchLeafEventsPage(
      this.connection,
      { programId: PROGRAM, mint, treeAddress: poolTreeAddress(PROGRAM, mint) },
      cursor,
      Math.min(limit, this.tweak.pageLimit ?? limit),
    );
    this.events += page.events.length;
    return this.tweak.page ? this.tweak.page(page) : page;
  }

  async treeAccount(mint: string): Promise<TreeAccount | null> {
    const info = await this.connection.getAccountInfo(new PublicKey(poolTreeAddress(PROGRAM, mint)), "confirmed");
    if (!info) return null;
    const t = decodeTreeAccount(info.data);
    if (!t.ok) throw new Error(t.error);
    const a = { root: currentRoot(t.value), nextIndex: t.value.nextIndex };
    return this.tweak.account ? this.tweak.account(a) : a;
  }

  isNullifierSpent(): Promise<boolean> {
    throw new Error("not in this test");
  }
  spentBy(): Promise<string | null> {
    throw new Error("not in this test");
  }
  blockHeight(): Promise<number | null> {
    throw new Error("not in this test");
  }
  submitWithdrawal(): never {
    throw new Error("not in this test");
  }
  findDeposit(): never {
    throw new Error("not in this test");
  }
  revertDeposit(): never {
    throw new Error("not in this test");
  }
  async health() {
    return [];
  }
}

let validator: LocalValidator;
let connection: Connection;
let hasher: FieldHasher;
let depositors: Keypair[];
const tempDir = tempDirs("deposit-history-");
/** Commitments inserted, by leaf index. */
const inserted: Uint8Array[] = [];
let lastTreeSignature = "";

const randomCommitment = (): Uint8Array => bigIntToBytes32(bytesToBigInt(randomBytes(32)) % FIELD_MODULUS);
const nonce = (): bigint => randomBytes(8).readBigUInt64LE();

/** Deposits of these precommitments (protocol v2: the program computes each leaf from the amount it received). */
function depositTx(from: Keypair, precommitments: Uint8Array[], blockhash: string, amount = AMOUNT): Transaction {
  const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash });
  for (const p of precommitments) {
    tx.add(depositInstruction({ programId: PROGRAM, depositor: from.publicKey.toBase58(), mint: USDC, precommitment: p, amount, nonce: nonce(), hasher }));
  }
  tx.sign(from);
  return tx;
}

/** Sends (a few at a time) and waits until every transaction is confirmed; returns the signatures in send order. */
async function sendAll(txs: Transaction[]): Promise<string[]> {
  const signatures: string[] = [];
  for (let k = 0; k < txs.length; k += 32) {
    signatures.push(...(await Promise.all(txs.slice(k, k + 32).map((tx) => connection.sendRawTransaction(tx.serialize(), { skipPreflight: true })))));
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const statuses = [];
    for (let k = 0; k < signatures.length; k += 256) statuses.push(...(await connection.getSignatureStatuses(signatures.slice(k, k + 256))).value);
    if (statuses.every((s) => s && (s.confirmationStatus === "confirmed" || s.confirmationStatus === "finalized"))) return signatures;
    if (Date.now() > deadline) throw new Error("deposits not confirmed within 60 s");
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function chainTree(): Promise<TreeAccount> {
  const a = await new HistoryChain(connection).treeAccount(USDC);
  if (!a) throw new Error("no tree account");
  return a;
}

async function openIndexer(dir: string, chain: ChainBackend, log: (l: string) => void = () => {}) {
  const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
  const store = new SqlTreeStore(db);
  const indexer = new IndexerService(store, new Map([[NETWORK, chain]]), hasher, (_n, mint) => poolTreeAddress(PROGRAM, mint), log);
  return { db, store, indexer };
}

/** One deposit made now, by a funded depositor; resolves once confirmed. */
async function depositNow(): Promise<void> {
  const c = randomCommitment();
  const { blockhash } = await connection.getLatestBlockhash("confirmed");
  await sendAll([depositTx(depositors[0]!, [c], blockhash)]);
  inserted.push(c);
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

beforeAll(async () => {
  hasher = await createPoseidonHasher();
  validator = await startLocalValidator({ port: 0, slotMs: 20, poolProgramId: PROGRAM });
  connection = new Connection(validator.rpcUrl, { commitment: "confirmed", wsEndpoint: validator.wsUrl });

  depositors = Array.from({ length: 12 }, () => Keypair.generate());
  for (const d of depositors) {
    await validator.airdrop(d.publicKey.toBase58(), SOL);
    await validator.mintTo(d.publicKey.toBase58(), USDC, 1_000n * AMOUNT);
  }
  const authority = depositors[0]!;
  // Only the program's upgrade authority may open a pool (issue 25).
  await validator.setUpgradeAuthority(authority.publicKey.toBase58());
  let { blockhash } = await connection.getLatestBlockhash("confirmed");
  const init = new Transaction({ feePayer: authority.publicKey, recentBlockhash: blockhash }).add(
    ...initializePoolInstructions({ programId: PROGRAM, authority: authority.publicKey.toBase58(), mint: USDC, minDeposit: 1n }),
  );
  init.sign(authority);
  await sendAll([init]);

  // 162 transactions of 1–3 deposits (324 inserted), plus failed transactions
  // (more than the balance: the token transfer fails) and zero precommitments
  // (the program records a DepositFailedEvent and inserts nothing).
  ({ blockhash } = await connection.getLatestBlockhash("confirmed"));
  const txs: Transaction[] = [];
  const expected: Uint8Array[][] = [];
  for (let k = 0; k < 162; k++) {
    const from = depositors[k % depositors.length]!;
    if (k % 40 === 13) txs.push(depositTx(from, [randomCommitment()], blockhash, 10_000n * AMOUNT));
    if (k % 50 === 7) txs.push(depositTx(from, [new Uint8Array(32)], blockhash));
    const ps = Array.from({ length: 1 + (k % 3) }, randomCommitment);
    expected.push(ps.map((p) => depositCommitment(hasher, p, AMOUNT, USDC)!));
    txs.push(depositTx(from, ps, blockhash));
  }
  // Sent in waves: within a wave the landing order is the validator's, so leaf order is read back from the chain.
  const signatures = await sendAll(txs);
  expect(signatures.length).toBe(170);
  const byLeaf = new Map<number, Uint8Array>();
  const page = await fetchLeafEventsPage(connection, { programId: PROGRAM, mint: USDC, treeAddress: TREE }, null, 10_000);
  for (const e of page.events) byLeaf.set(e.leafIndex, e.commitment);
  for (let i = 0; i < byLeaf.size; i++) inserted.push(byLeaf.get(i)!);
  lastTreeSignature = (await connection.getSignaturesForAddress(new PublicKey(TREE), { limit: 1 }, "confirmed"))[0]!.signature;
  // Every leaf the program computed from our precommitments is in, once.
  expect(new Set(inserted.map(toHex))).toEqual(new Set(expected.flat().map(toHex)));
}, 120_000);

afterAll(async () => {
  await validator?.close();
});

describe("deposit history on the local validator", () => {
  it("an indexer backfills 324 real deposits and its root equals the on-chain TreeAccount root", async () => {
    const onChain = await chainTree();
    expect(onChain.nextIndex).toBe(TOTAL);
    const chain = new HistoryChain(new Connection(validator.rpcUrl, "confirmed"));
    const { db, store, indexer } = await openIndexer(tempDir(), chain);
    await indexer.start();
    const pool = indexer.get(NETWORK, USDC)!;
    expect(pool.tree.nextIndex).toBe(TOTAL);
    expect(toHex(pool.tree.root())).toBe(toHex(onChain.root));
    expect(pool.drift).toBeNull();
    expect(indexer.health()[0]!.ok).toBe(true);
    expect((await store.listPools())[0]!.cursor).toBe(lastTreeSignature);
    // A second sync reads nothing new.
    const events = chain.events;
    await indexer.sync(NETWORK, USDC);
    expect(chain.events).toBe(events);
    await db.close();
  }, 60_000);

  it("an indexer stopped mid-backfill resumes from its persisted cursor and converges", async () => {
    const dir = tempDir();
    const first = new HistoryChain(new Connection(validator.rpcUrl, "confirmed"), { pageLimit: 40, failAfterPages: 3 });
    const a = await openIndexer(dir, first);
    // The start serves what it has (a pool that cannot sync never stops the relay's start) and health names why.
    await a.indexer.start();
    expect(JSON.stringify(a.indexer.health())).toMatch(/stopped mid-backfill/);
    const persisted = (await a.store.listPools())[0]!;
    const done = a.indexer.get(NETWORK, USDC)!.tree.nextIndex;
    expect(done).toBe(first.events);
    expect(done).toBeGreaterThanOrEqual(120);
    expect(done).toBeLessThan(TOTAL);
    expect(persisted.cursor).not.toBeNull();
    await a.db.close();

    // Restart: a new process (new store, new connection: nothing cached but the persisted cursor).
    const second = new HistoryChain(new Connection(validator.rpcUrl, "confirmed"), { pageLimit: 40 });
    const b = await openIndexer(dir, second);
    await b.indexer.start();
    expect(second.cursors[0]).toBe(persisted.cursor);
    expect(second.events).toBe(TOTAL - done);
    const pool = b.indexer.get(NETWORK, USDC)!;
    expect(pool.tree.nextIndex).toBe(TOTAL);
    expect(toHex(pool.tree.root())).toBe(toHex((await chainTree()).root));
    expect(pool.drift).toBeNull();
    await b.db.close();
  }, 60_000);

  it("marks drift when the chain's root disagrees (the pool's indexer answers are then refused with IndexerDrift)", async () => {
    const lying = new HistoryChain(connection, { account: (acc) => ({ ...acc, root: randomCommitment() }) });
    const a = await openIndexer(tempDir(), lying);
    await a.indexer.start();
    const pool = a.indexer.get(NETWORK, USDC)!;
    expect(pool.tree.nextIndex).toBe(TOTAL);
    expect(pool.drift).toMatch(new RegExp(`indexer root [0-9a-f]{64} != chain root [0-9a-f]{64} at ${TOTAL} leaves`));
    expect(a.indexer.health()[0]!.ok).toBe(false);
    await a.db.close();

    // A corrupted leaf (one commitment altered on its way into the store) diverges from the real chain root.
    const corrupting = new HistoryChain(connection, {
      page: (p) => ({ ...p, events: p.events.map((e) => (e.leafIndex === 17 ? { ...e, commitment: randomCommitment() } : e)) }),
    });
    const b = await openIndexer(tempDir(), corrupting);
    await b.indexer.start();
    expect(b.indexer.get(NETWORK, USDC)!.drift).toMatch(/!= chain root/);
    await b.db.close();
  }, 60_000);

  it("the follower picks up a deposit made after start within a few poll intervals (polling alone)", async () => {
    const chain = new HistoryChain(new Connection(validator.rpcUrl, "confirmed"));
    const { db, indexer } = await openIndexer(tempDir(), chain);
    await indexer.start();
    const pollMs = 200;
    const follower = new ChainFollower({
      indexer,
      networks: new Map([[NETWORK, { chain, pollMs, maxIndexerLagSec: 30 }]]),
      subscribe: () => () => {}, // notifications lost: only the poll
    });
    await follower.start();
    const before = indexer.get(NETWORK, USDC)!.tree.nextIndex;
    await depositNow();
    await until("indexed by polling", () => indexer.get(NETWORK, USDC)!.tree.nextIndex === before + 1, 20_000);
    // No notification exists here: the poll did it (how fast is the bench's business, not a test's).
    expect(follower.stats()[0]!.notifications).toBe(0);
    const pool = indexer.get(NETWORK, USDC)!;
    expect(toHex(pool.tree.root())).toBe(toHex((await chainTree()).root));
    await until("lag measured", () => follower.stats()[0]!.chainNextIndex === before + 1, 20_000);
    expect(follower.stats()[0]!).toMatchObject({ lagDeposits: 0, lagSec: 0, treeNextIndex: before + 1, failures: 0 });
    expect(follower.health()).toEqual([{ name: "indexer-lag:mainnet", ok: true, detail: "1 pools in sync" }]);
    await follower.stop();
    await db.close();
  }, 60_000);

  it("the follower rides out RPC errors: logged once, backs off, catches up when the RPC answers again", async () => {
    const chain = new HistoryChain(new Connection(validator.rpcUrl, "confirmed"));
    const { db, indexer } = await openIndexer(tempDir(), chain);
    await indexer.start();
    const logs: string[] = [];
    const pollMs = 100;
    const follower = new ChainFollower({
      indexer,
      networks: new Map([[NETWORK, { chain, pollMs, maxIndexerLagSec: 30 }]]),
      subscribe: () => () => {},
      log: (l) => logs.push(l),
      maxBackoffMs: 400,
    });
    await follower.start();
    const before = indexer.get(NETWORK, USDC)!.tree.nextIndex;
    validator.faults.set({ rpcErrors: { code: 503, methods: ["getSignaturesForAddress"] } });
    try {
      await depositNow();
      await until("failing", () => follower.stats()[0]!.failures >= 3, 5_000);
      expect(indexer.get(NETWORK, USDC)!.tree.nextIndex).toBe(before);
      // The chain's count is still read: the lag shows.
      expect(follower.stats()[0]!.lagDeposits).toBe(1);
    } finally {
      validator.faults.clear();
    }
    await until("caught up", () => indexer.get(NETWORK, USDC)!.tree.nextIndex === before + 1 && follower.stats()[0]!.failures === 0, 5_000);
    expect(logs.filter((l) => / sync failed: /.test(l))).toHaveLength(1);
    expect(logs.filter((l) => / sync recovered after /.test(l))).toHaveLength(1);
    expect(toHex(indexer.get(NETWORK, USDC)!.tree.root())).toBe(toHex((await chainTree()).root));
    await follower.stop();
    await db.close();
  }, 60_000);

  it("the follower indexes a deposit on its log notification, well before the next poll", async () => {
    const ws = new Connection(validator.rpcUrl, { commitment: "confirmed", wsEndpoint: validator.wsUrl });
    const chain = new HistoryChain(ws);
    const { db, indexer } = await openIndexer(tempDir(), chain);
    await indexer.start();
    const subscribe = solanaPoolSubscriber(ws, { programId: PROGRAM, commitment: "confirmed" });
    const follower = new ChainFollower({
      indexer,
      networks: new Map([[NETWORK, { chain, pollMs: 60_000, maxIndexerLagSec: 30 }]]),
      subscribe: ({ mint }, onChange) => subscribe(mint, onChange),
    });
    await follower.start();
    const subscriptionsBefore = validator.subscriptionCount;
    await until("subscribed", () => follower.stats()[0]?.subscribed === true, 20_000);
    // The websocket's logsSubscribe reached the validator: a deposit now is notified.
    await until("logsSubscribe registered", () => validator.subscriptionCount > subscriptionsBefore, 20_000);
    const before = indexer.get(NETWORK, USDC)!.tree.nextIndex;
    await depositNow();
    // pollMs is 60 s: only the notification can index it within this bound.
    await until("indexed on notification", () => indexer.get(NETWORK, USDC)!.tree.nextIndex === before + 1, 30_000);
    expect(follower.stats()[0]!.notifications).toBeGreaterThanOrEqual(1);
    expect(toHex(indexer.get(NETWORK, USDC)!.tree.root())).toBe(toHex((await chainTree()).root));
    await follower.stop();
    await db.close();
  }, 60_000);
});
