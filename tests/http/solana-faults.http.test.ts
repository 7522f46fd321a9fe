/**
 * The Solana backend under the faults a real cluster throws at a relay, through
 * HTTP against the local validator with real proofs: dropped transactions,
 * expired blockhashes, an RPC outage, a restart during backfill, and a tree
 * account whose root no longer matches the indexer's.
 */
import { PublicKey, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentRoot, decodeTreeAccount, depositInstruction, encodeTreeAccount, poolTreeAddress } from "../../src-shared/pool-program";
import type { SubmissionAttempt } from "../../src-shared/submission-attempt";
import { confirmSignature } from "../../src-localnet/confirm";
import { startSolanaHarness, type Localnet } from "../support/localnet";
import type { RelayHarness } from "../support/harness";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { randomCommitment, USDC, WSOL } from "../support/sandbox";
import { get, newWallet, post, type TestWallet } from "../support/wallet";

const OPERATOR = "solana-faults-operator-token-0123456789";
let h: RelayHarness & { localnet: Localnet };
let net: Localnet;
let depositor: TestWallet;
let token: string;

const login = async (w: TestWallet): Promise<string> => {
  const t = Math.floor(Date.now() / 1000);
  return ((await post(`${h.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string }).id;
};
const relay = (body: unknown) => post(`${h.url}/relay`, body, { "x-api-auth": token });
const admin = async <T>(p: string): Promise<T> => {
  const r = await fetch(`${h.url}/admin${p}`, { headers: { authorization: `Bearer ${OPERATOR}` } });
  expect(r.status).toBe(200);
  return (await r.json()) as T;
};
/** The relay record of the withdrawal that landed with this signature. */
const recordOf = async (signature: string): Promise<{ id: string; attempts: SubmissionAttempt[]; costLamports: string }> => {
  const page = await admin<{ items: { id: string; signature: string | null }[] }>("/relays?limit=50");
  const item = page.items.find((i) => i.signature === signature);
  if (!item) throw new Error(`no relay record with signature ${signature}`);
  return admin(`/relays/${item.id}`);
};
const withdrawal = (label: string): Promise<PreparedWithdrawal> =>
  prepareWithdrawal(h.url, depositor, USDC, { recipient: testRecipient(`solana-faults-${label}`), amount: 1_000_000, chain: h.chain });
const until = async (what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

beforeAll(async () => {
  h = await startSolanaHarness({ RELAY_RATE_LIMITS: "off", RELAY_OPERATOR_TOKEN: OPERATOR });
  net = h.localnet;
  depositor = newWallet();
  await h.chain.fund(depositor, 100_000_000, USDC);
  token = await login(depositor);
}, 120_000);
afterAll(async () => {
  net?.validator.faults.clear?.();
  await h?.stop();
});

describe("landing engine faults through /relay", () => {
  it("rebroadcasts a dropped transaction: it lands once, the recipient is paid once, the record shows one attempt sent more than once", async () => {
    const w = await withdrawal("dropped");
    const before = await h.chain.balance(w.body.recipient, USDC);
    net.validator.faults.set({ dropTransactions: 1 });
    const r = await relay(w.body);
    expect(r.json).toMatchObject({ status: 200 });
    const signature = (r.json as { signature: string }).signature;
    const rec = await recordOf(signature);
    expect(rec.attempts).toHaveLength(1);
    expect(rec.attempts[0]).toMatchObject({ n: 1, verdict: "landed", signature });
    expect(rec.attempts[0]!.broadcasts).toBeGreaterThanOrEqual(2);
    expect(BigInt(rec.costLamports)).toBeGreaterThan(0n);
    const fee = (1_000_000n * 25n) / 10_000n;
    expect((await h.chain.balance(w.body.recipient, USDC)) - before).toBe(1_000_000n - fee);
    expect((await relay(w.body)).json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
  });

  it("retries an expired blockhash with a fresh one: two attempts, one landing, and racing relays of the same nullifier never spend it twice", async () => {
    const w = await withdrawal("expired");
    const before = await h.chain.balance(w.body.recipient, USDC);
    net.validator.faults.set({ expireNext: 1 });
    const answers = await Promise.all(Array.from({ length: 4 }, () => relay(w.body)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
    const signature = (ok[0]!.json as { signature: string }).signature;
    const rec = await recordOf(signature);
    expect(rec.attempts.map((a) => a.verdict)).toEqual(["expired", "landed"]);
    expect(rec.attempts[0]!.blockhash).not.toBe(rec.attempts[1]!.blockhash);
    expect(rec.attempts[0]!.signature).not.toBe(rec.attempts[1]!.signature);
    const fee = (1_000_000n * 25n) / 10_000n;
    expect((await h.chain.balance(w.body.recipient, USDC)) - before).toBe(1_000_000n - fee);
    // The expired transaction can never land later: its blockhash is gone.
    const statuses = await net.connection.getSignatureStatuses([rec.attempts[0]!.signature], { searchTransactionHistory: true });
    expect(statuses.value[0]).toBeNull();
  });

  it("maps a simulation the program refuses to the spec error without sending anything", async () => {
    const w = await withdrawal("simulation");
    const txBefore = net.validator.ledger.transactionCount;
    net.validator.faults.set({
      simulationError: { err: { InstructionError: [2, { Custom: 6001 }] }, logs: ["Program log: Error: UnknownRoot"] },
      simulationFailures: 1,
    });
    const r = await relay(w.body);
    expect(r.json).toMatchObject({ status: 400, error: "InvalidRoot" });
    expect(net.validator.ledger.transactionCount).toBe(txBefore);
    // Nothing was spent: the same withdrawal goes through once the fault is gone.
    expect((await relay(w.body)).json).toMatchObject({ status: 200 });
  });
});

describe("console", () => {
  it("shows the solana network's fee payer (the operator's keypair file) in the keys and money views", async () => {
    const feePayer = net.relayer.publicKey.toBase58();
    const settings = await admin<{ keys: { name: string; publicKey: string }[] }>("/settings");
    expect(settings.keys).toContainEqual(
      expect.objectContaining({ name: "fee payer (mainnet)", publicKey: feePayer, storage: `operator's keypair file ${net.relayerKeyFile}` }),
    );
    const money = await admin<{ feePayers: { network: string; address: string; sandbox: boolean }[] }>("/money");
    expect(money.feePayers).toContainEqual(expect.objectContaining({ network: "mainnet", address: feePayer, sandbox: false }));
  });
});

describe("RPC outage", () => {
  it("turns /health to 503 naming the chain while the RPC is down, and back to 200 ok when it returns", async () => {
    expect((await get(`${h.url}/health`)).status).toBe(200);
    net.validator.faults.set({ down: true });
    try {
      await until("/health 503", async () => (await get(`${h.url}/health`)).status === 503);
      const r = await get(`${h.url}/health`);
      expect(r.text).toMatch(/chain:mainnet/);
    } finally {
      net.validator.faults.set({ down: false });
    }
    await until("/health 200", async () => (await get(`${h.url}/health`)).status === 200);
    expect((await get(`${h.url}/health`)).text).toBe("ok");
  });
});

describe("indexer", () => {
  it("killed (kill -9) while deposits keep landing, resumes from its persisted cursor after restart and converges to the on-chain root", async () => {
    const dataDir = h.relay.dataDir;
    await h.relay.kill9();
    // Deposits the relay has not seen, made while it is down.
    const w = newWallet();
    await h.chain.fund(w, 10_000_000, WSOL);
    for (let i = 0; i < 40; i++) await depositWithoutWaiting(w, i);
    await h.restart();
    expect(h.relay.dataDir).toBe(dataDir);
    const onChain = async (): Promise<{ root: number[]; nextIndex: number }> => {
      const info = await net.connection.getAccountInfo(new PublicKey(poolTreeAddress(net.programId, WSOL)));
      const t = decodeTreeAccount(Uint8Array.from(info!.data));
      if (!t.ok) throw new Error(t.error);
      return { root: Array.from(currentRoot(t.value)), nextIndex: t.value.nextIndex };
    };
    const expected = await onChain();
    expect(expected.nextIndex).toBeGreaterThanOrEqual(40);
    await until("the relay's WSOL tree to catch up", async () => {
      const m = (await post(`${h.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { root: number[]; nextIndex: number } };
      return m.json.nextIndex === expected.nextIndex;
    });
    const m = (await post(`${h.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { root: number[]; nextIndex: number } };
    expect(m.json.root).toEqual(expected.root);
    token = await login(depositor);
  });

  it("reports a forced root mismatch (503 IndexerDrift on proofs, /health red) instead of serving a wrong proof", async () => {
    const address = poolTreeAddress(net.programId, WSOL);
    const account = net.validator.ledger.getAccount(address)!;
    const decoded = decodeTreeAccount(account.data);
    if (!decoded.ok) throw new Error(decoded.error);
    const t = decoded.value;
    const forged = { ...t, roots: t.roots.map((r, i) => (i === t.currentRootIndex ? Uint8Array.from(randomCommitment()) : r)) };
    net.validator.ledger.setAccount(address, { ...account, data: encodeTreeAccount(forged) });
    try {
      await until("drift", async () => (await post(`${h.url}/get_proof/${WSOL}/32/0/mainnet`)).status === 503);
      expect((await post(`${h.url}/get_proof/${WSOL}/32/0/mainnet`)).json).toMatchObject({ error: "IndexerDrift" });
      // /health answers from a report up to 5 s old.
      await until("/health 503", async () => (await get(`${h.url}/health`)).status === 503);
      expect((await get(`${h.url}/health`)).text).toMatch(/drift/);
    } finally {
      net.validator.ledger.setAccount(address, account);
    }
    await until("drift to clear", async () => (await post(`${h.url}/get_proof/${WSOL}/32/0/mainnet`)).status === 200);
  });
});

/** A deposit transaction confirmed on chain without waiting for any relay to index it. */
async function depositWithoutWaiting(w: TestWallet, i: number): Promise<void> {
  const { blockhash, lastValidBlockHeight } = await net.connection.getLatestBlockhash("confirmed");
  const tx = new Transaction({ feePayer: new PublicKey(w.address), blockhash, lastValidBlockHeight }).add(
    depositInstruction({
      programId: net.programId,
      depositor: w.address,
      mint: WSOL,
      precommitment: Uint8Array.from(randomCommitment()),
      amount: 1000n,
      nonce: BigInt(1000 + i),
      hasher: net.hasher,
    }),
  );
  tx.addSignature(new PublicKey(w.address), Buffer.from(w.signBytes(tx.serializeMessage())));
  const sig = await net.connection.sendRawTransaction(tx.serialize());
  await confirmSignature(net.connection, sig, lastValidBlockHeight);
}
