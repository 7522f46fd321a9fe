/**
 * POST /get_leaves/{mint}/{depth}/{network} (protocol v3) against a real relay process: each leaf's
 * kind and a deposit's amount, after deposits of several amounts and a partial withdrawal whose
 * change leaf the pool inserted; paging with from and limit; every bad input refused with the
 * spec's error names, as get_merkle refuses them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeLeafList } from "../../src-shared/api/public";
import { prepareWithdrawal, testRecipient } from "../support/proofs";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { airdrop, deposit, randomPrecommitment, USDC, WSOL } from "../support/sandbox";
import { newWallet, post } from "../support/wallet";

let relay: RelayProcess;
/** The leaves the pool should list, in order. */
const expected: { index: number; kind: "deposit" | "change"; amount: string | null }[] = [];
let changeLeafIndex: number;

const leavesOf = (body?: unknown, mint = USDC, network = "mainnet") => post(`${relay.url}/get_leaves/${mint}/32/${network}`, body);

beforeAll(async () => {
  relay = await startRelay({});
  const w = newWallet();
  await airdrop(relay.url, w, 20_000_000, USDC);
  for (const amount of [1000, 250_000]) {
    const d = await deposit(relay.url, w, randomPrecommitment(), amount, USDC);
    expect(d).toMatchObject({ status: "indexed", leafIndex: expected.length });
    expected.push({ index: d.leafIndex!, kind: "deposit", amount: String(amount) });
  }
  // A 3,000,000 note of which 1,000,000 is withdrawn: the pool inserts the change leaf of the 2,000,000 left.
  const w1 = await prepareWithdrawal(relay.url, w, USDC, { recipient: testRecipient("leaves-partial"), amount: 3_000_000, withdraw: 1_000_000 });
  expected.push({ index: w1.deposit.leafIndex, kind: "deposit", amount: "3000000" });
  const t = Math.floor(Date.now() / 1000);
  const auth = ((await post(`${relay.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string }).id;
  const landed = await post(`${relay.url}/relay`, w1.body, { "x-api-auth": auth });
  expect(landed.status).toBe(200);
  changeLeafIndex = (landed.json as { changeLeafIndex: number }).changeLeafIndex;
  expected.push({ index: changeLeafIndex, kind: "change", amount: null });
  const after = await deposit(relay.url, w, randomPrecommitment(), 5_000, USDC);
  expected.push({ index: after.leafIndex!, kind: "deposit", amount: "5000" });
  expect(expected.map((l) => l.index)).toEqual([0, 1, 2, 3, 4]);
}, 180_000);
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

describe("POST /get_leaves/{mint}/{depth}/{network}", () => {
  it("lists every leaf with its kind and a deposit's amount as decimal text; a change leaf has none", async () => {
    const merkle = (await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`)).json as { address: string; json: { nextIndex: number } };
    const r = await leavesOf();
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ address: merkle.address, json: { nextIndex: 5, from: 0, leaves: expected } });
    expect(merkle.json.nextIndex).toBe(5);
    expect(changeLeafIndex).toBe(3);
    // The SDK's decoder accepts what the relay answers.
    expect(decodeLeafList(r.json)).toMatchObject({ ok: true, value: { json: { leaves: expected } } });
  });

  it("answers an empty JSON body like no body, and is limited like the other indexer reads", async () => {
    const r = await leavesOf({});
    expect(r.status).toBe(200);
    expect((r.json as { json: { leaves: unknown[] } }).json.leaves).toEqual(expected);
    expect(r.headers.get("ratelimit-limit")).toBe("60");
  });

  it("pages with from and limit; from at or past nextIndex gives an empty list", async () => {
    const page = async (from: number, limit: number) => {
      const r = await leavesOf({ from, limit });
      expect(r.status).toBe(200);
      return (r.json as { json: { nextIndex: number; from: number; leaves: unknown[] } }).json;
    };
    expect(await page(0, 2)).toEqual({ nextIndex: 5, from: 0, leaves: expected.slice(0, 2) });
    expect(await page(2, 2)).toEqual({ nextIndex: 5, from: 2, leaves: expected.slice(2, 4) });
    expect(await page(4, 2)).toEqual({ nextIndex: 5, from: 4, leaves: expected.slice(4) });
    expect(await page(3, 10_000)).toEqual({ nextIndex: 5, from: 3, leaves: expected.slice(3) });
    expect(await page(1, 0)).toEqual({ nextIndex: 5, from: 1, leaves: [] });
    expect(await page(5, 10)).toEqual({ nextIndex: 5, from: 5, leaves: [] });
    expect(await page(2 ** 40, 10)).toEqual({ nextIndex: 5, from: 2 ** 40, leaves: [] });
    // The sandbox's devnet has its own, empty USDC tree.
    expect((await leavesOf({}, USDC, "devnet")).json).toMatchObject({ json: { nextIndex: 0, from: 0, leaves: [] } });
  });

  it.each([
    [`/get_leaves/${newWallet().address}/32/mainnet`, undefined, 404, "PoolNotFound", null],
    [`/get_leaves/${WSOL}/32/testnet`, undefined, 400, "InvalidNetwork", null],
    [`/get_leaves/${WSOL}/20/mainnet`, undefined, 400, "InvalidDepth", null],
    [`/get_leaves/${WSOL}/abc/mainnet`, undefined, 400, "InvalidDepth", null],
    [`/get_leaves/not-base58-0OIl/32/mainnet`, undefined, 400, "InvalidMint", null],
    [`/get_leaves/3yZe7d/32/mainnet`, undefined, 400, "InvalidMint", null],
    [`/get_leaves/${USDC}/32/mainnet`, { from: -1 }, 400, "InvalidRequest", "from"],
    [`/get_leaves/${USDC}/32/mainnet`, { from: 1.5 }, 400, "InvalidRequest", "from"],
    [`/get_leaves/${USDC}/32/mainnet`, { from: "0" }, 400, "InvalidRequest", "from"],
    [`/get_leaves/${USDC}/32/mainnet`, { from: null }, 400, "InvalidRequest", "from"],
    [`/get_leaves/${USDC}/32/mainnet`, { from: 2 ** 60 }, 400, "InvalidRequest", "from"],
    [`/get_leaves/${USDC}/32/mainnet`, { limit: -1 }, 400, "InvalidRequest", "limit"],
    [`/get_leaves/${USDC}/32/mainnet`, { limit: 2.5 }, 400, "InvalidRequest", "limit"],
    [`/get_leaves/${USDC}/32/mainnet`, { limit: "10" }, 400, "InvalidRequest", "limit"],
    [`/get_leaves/${USDC}/32/mainnet`, { limit: 10_001 }, 400, "InvalidRequest", "limit"],
    [`/get_leaves/${USDC}/32/mainnet`, { limit: 1e12 }, 400, "InvalidRequest", "limit"],
    [`/get_leaves/${USDC}/32/mainnet`, [0, 10], 400, "InvalidRequest", "body"],
    [`/get_leaves/${USDC}/32/mainnet`, "0", 400, "InvalidRequest", null],
  ])("POST %s %j answers %i %s", async (path, body, status, error, names) => {
    const r = await post(`${relay.url}${path}`, body);
    expect(r.status).toBe(status);
    const answer = r.json as { error: string; message?: string };
    expect(answer.error).toBe(error);
    if (names) expect(answer.message).toContain(names);
  });

  it("refuses a body that is not JSON with 400 InvalidRequest", async () => {
    const r = await post(`${relay.url}/get_leaves/${USDC}/32/mainnet`, '{"from": 1,');
    expect(r.status).toBe(400);
    expect((r.json as { error: string }).error).toBe("InvalidRequest");
  });
});
