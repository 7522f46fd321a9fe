import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { encodeProof, fromSnarkjs, type SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { rawRequest, type RawAnswer } from "../support/raw-http";
import { airdrop, deposit, randomPrecommitment, WSOL } from "../support/sandbox";
import { newWallet, post } from "../support/wallet";

/**
 * docs/security.md, "Event loop and verifier": a proof made of valid curve points
 * costs a full pairing, so a client gets a small share of the verifier
 * (rateLimits.verificationsPerIp, 429 beyond it), a full verifier queue is 503
 * ServerBusy (never 500), and what can be refused cheaply never reaches it.
 * This relay has one verifier thread and a queue of one, so load shows at once.
 */

let relay: RelayProcess;
let root: number[];
/** A real Groth16 proof (valid curve points) that verifies for nothing this relay would accept. */
const JUNK_PROOF = Array.from(
  encodeProof(fromSnarkjs((JSON.parse(readFileSync(new URL("../support/v1-proof.json", import.meta.url), "utf8")) as { proof: SnarkjsProof }).proof)),
);

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "verifier-load-"));
  const config = path.join(dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({ verifier: { threads: 1, maxQueue: 1 }, rateLimits: { verificationsPerIp: 2, perEndpoint: { relay: 10_000, sandbox: 10_000 } } }),
  );
  relay = await startRelay({ RELAY_CONFIG: config, RELAY_REQUIRE_RELAY_AUTH: "off" });
  const w = newWallet();
  await airdrop(relay.url, w, 2_000_000_000);
  await deposit(relay.url, w, randomPrecommitment(), 1_000_000_000);
  root = ((await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { root: number[] } }).json.root;
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

const junkRelay = (from: string, over: Record<string, unknown> = {}): Promise<RawAnswer> =>
  rawRequest(`${relay.url}/relay`, {
    localAddress: from,
    body: {
      nullifierHash: [0, ...randomBytes(30), 1],
      proof: JUNK_PROOF,
      root,
      recipient: encodeBase58(randomBytes(32)),
      depth: 32,
      depositSize: 1_000_000_000,
      mint: WSOL,
      network: "mainnet",
      changeCommitment: [0, ...randomBytes(30), 2],
      ...over,
    },
  });

const tally = (answers: RawAnswer[]): Record<string, number> => {
  const t: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.status} ${(a.json as { error?: string } | undefined)?.error ?? ""}`;
    t[key] = (t[key] ?? 0) + 1;
  }
  return t;
};

describe("proof verification under load", () => {
  it("gives one client address at most verificationsPerIp proofs in the verifier: the rest are 429 RateLimited with Retry-After, none 500", async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => junkRelay("127.0.0.31")));
    const t = tally(answers);
    expect(
      Object.keys(t).every((k) => ["400 InvalidProof", "429 RateLimited", "503 ServerBusy"].includes(k)),
      JSON.stringify(t),
    ).toBe(true);
    expect(t["429 RateLimited"] ?? 0, JSON.stringify(t)).toBeGreaterThan(0);
    expect(t["400 InvalidProof"] ?? 0, JSON.stringify(t)).toBeGreaterThan(0);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.json).toMatchObject({ status: 429, error: "RateLimited" });
    expect(refused.headers["retry-after"]).toBe("1");
  });

  it("answers 503 ServerBusy with Retry-After when the verifier's queue is full, never 500", async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => junkRelay(`127.0.2.${i + 1}`)));
    const t = tally(answers);
    expect(
      Object.keys(t).every((k) => ["400 InvalidProof", "503 ServerBusy"].includes(k)),
      JSON.stringify(t),
    ).toBe(true);
    expect(t["503 ServerBusy"] ?? 0, JSON.stringify(t)).toBeGreaterThan(0);
    const busy = answers.find((a) => a.status === 503)!;
    expect(busy.json).toMatchObject({ status: 503, error: "ServerBusy", message: expect.stringMatching(/busy/) });
    expect(busy.headers["retry-after"]).toBe("1");
  });

  it("refuses an unknown root, a fee below the published one and another relayer's proof before the verifier: no 429 or 503 however many are sent at once", async () => {
    const cheap = [{ root: [0, ...randomBytes(30), 2] }, { fee: 1 }, { relayer: encodeBase58(randomBytes(32)) }];
    for (const over of cheap) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => junkRelay("127.0.0.32", over)));
      const t = tally(answers);
      expect(Object.keys(t), JSON.stringify(t)).toHaveLength(1);
      expect(answers[0]!.status, JSON.stringify(t)).toBe(400);
    }
    // And the same address still has its whole share of the verifier.
    expect((await junkRelay("127.0.0.32")).json).toMatchObject({ status: 400, error: "InvalidProof" });
  });
});
