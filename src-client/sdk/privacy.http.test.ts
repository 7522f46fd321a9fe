import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { cachedProver } from "../../tests/support/proofs";
import { startRecordingProxy, type RecordedRequest, type RecordingProxy } from "../../tests/support/recording-proxy";
import { startRelay, type RelayProcess } from "../../tests/support/relay-process";
import { runCaptured, type CapturedRun } from "../cli/test-support";
import { sandboxDeposit } from "./deposit";
import { relayFee } from "./fees";
import { RelayClient } from "./http";
import { Keypair, writeKeypairFile } from "./keypair";
import { createNote, saveNote, type DepositNote } from "./note";
import { withdraw } from "./withdraw";

/**
 * What a sandbox relay sees of a withdrawal, recorded by a proxy in front of
 * the real relay process: which leaves and nullifier hashes it is asked for,
 * with which token, and on which client connection (docs/privacy.md).
 */
const WSOL = "So11111111111111111111111111111111111111112";
const DEPOSITS = 12;
const AMOUNT = 1_000_000n;

const leafOf = (r: RecordedRequest): number => Number(r.path.split("/")[4]);
const hashOf = (r: RecordedRequest): string => (JSON.parse(r.body) as { nullifierHash: number[] }).nullifierHash.join(",");
const isLookup = (r: RecordedRequest): boolean => r.endpoint === "get_proof" || r.endpoint === "get_node" || r.endpoint === "get_nullifier";

describe("withdraw() against a sandbox relay behind a recording proxy", () => {
  let dir: string;
  let relay: RelayProcess;
  let proxy: RecordingProxy;
  let direct: RelayClient;
  let hasher: FieldHasher;
  let depositor: Keypair;
  const notes: DepositNote[] = [];
  const { prover } = cachedProver();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "privacy-http-"));
    [relay, hasher] = await Promise.all([startRelay({ RELAY_RATE_LIMITS: "off" }, path.join(dir, "data")), createPoseidonHasher()]);
    proxy = await startRecordingProxy(relay.url);
    direct = new RelayClient({ baseUrl: relay.url, timeoutMs: 15_000 });
    depositor = Keypair.generate();
    const funded = await direct.sandboxAirdrop({ network: "mainnet", wallet: depositor.address, mint: WSOL, amount: AMOUNT * BigInt(DEPOSITS) });
    if (!funded.ok) throw new Error(JSON.stringify(funded));
    // The deposits go straight to the relay: only the withdrawals pass the proxy.
    for (let i = 0; i < DEPOSITS; i++) {
      const created = await createNote({ network: "mainnet", mint: WSOL, amount: AMOUNT, hasher });
      if (!created.ok) throw new Error(created.error);
      const d = await sandboxDeposit(direct, depositor, created.value);
      if (!d.ok) throw new Error(JSON.stringify(d));
      notes.push(d.value);
    }
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    if (relay && relay.child.exitCode === null) await relay.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const feeOf = async (): Promise<bigint> => {
    const fees = await direct.fees();
    if (!fees.ok) throw new Error(JSON.stringify(fees));
    return relayFee(fees.value, "mainnet", WSOL, AMOUNT)!.fee;
  };

  it("by default the leaf is asked among 8 others (path and value) and the nullifier among 8 other hashes, never with the /relay token or on a connection of the login or /relay", async () => {
    const note = notes[5]!;
    expect(note.deposit?.leafIndex).toBe(5);
    const recipient = Keypair.generate().address;
    // A fresh login wallet, as the README says: not the depositor.
    const client = new RelayClient({ baseUrl: proxy.url, timeoutMs: 30_000 });
    proxy.requests.length = 0;
    const r = await withdraw(client, note, recipient, { wallet: Keypair.generate(), hasher, prove: { prover } });
    if (!r.ok) throw new Error(JSON.stringify(r.error, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
    expect(await direct.sandboxBalance("mainnet", recipient, WSOL)).toMatchObject({ ok: true, value: { amount: AMOUNT - (await feeOf()) } });

    const seen = proxy.requests;
    const proofs = seen.filter((q) => q.endpoint === "get_proof");
    const leaves = proofs.map(leafOf);
    expect(new Set(leaves).size).toBe(9);
    expect(leaves).toContain(5);
    expect(leaves.every((i) => Number.isInteger(i) && i >= 0 && i < DEPOSITS)).toBe(true);
    // Each path is checked against the root with the leaf's value, asked the same way.
    const nodes = seen.filter((q) => q.endpoint === "get_node").map((q) => Number(q.path.split("/")[4]) - 2 ** 32);
    expect(new Set(nodes)).toEqual(new Set(leaves));

    const relayIndex = seen.findIndex((q) => q.endpoint === "relay");
    expect(relayIndex).toBeGreaterThan(0);
    const checks = seen
      .slice(0, relayIndex)
      .filter((q) => q.endpoint === "get_nullifier")
      .map(hashOf);
    expect(new Set(checks).size).toBe(9);
    expect(checks).toContain(Array.from(note.nullifierHash).join(","));

    // The session: the login and every request that carried its token.
    const token = client.authToken!;
    expect(seen[relayIndex]!.token).toBe(token);
    const session = seen.filter((q) => q.endpoint === "login" || q.token === token);
    const sessionConnections = new Set(session.map((q) => q.connection));
    const lookups = seen.filter(isLookup);
    expect(lookups).toHaveLength(27);
    for (const q of lookups) {
      expect(q.token, `${q.path} carried a token`).toBeNull();
      expect(sessionConnections.has(q.connection), `${q.path} rode the session's connection`).toBe(false);
    }
    // Each lookup on a connection of its own: no socket ties one to another.
    expect(new Set(lookups.map((q) => q.connection)).size).toBe(lookups.length);
  }, 120_000);

  it("relay-cli relay and prove follow the SDK: --decoys 3 asks four leaves; --relay-links-deposit asks the note's leaf alone, once", async () => {
    const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, dir, proxy.url);
    expect(writeKeypairFile(path.join(dir, "login.json"), Keypair.generate()).ok).toBe(true);
    expect(saveNote(path.join(dir, "n7.json"), notes[7]!).ok).toBe(true);
    expect(saveNote(path.join(dir, "n9.json"), notes[9]!).ok).toBe(true);

    proxy.requests.length = 0;
    const padded = await run("relay", "--keypair", "login.json", "--note", "n7.json", "--recipient", Keypair.generate().address, "--decoys", "3", "--yes");
    expect(padded.code, padded.err).toBe(0);
    expect(padded.err).toContain("among 3 decoys");
    const leaves = proxy.requests.filter((q) => q.endpoint === "get_proof").map(leafOf);
    expect(new Set(leaves).size).toBe(4);
    expect(leaves).toContain(7);
    // The same four hashes twice: once where the chain stands, once before proving (no new set for the relay to intersect).
    const asked = proxy.requests.filter((q) => q.endpoint === "get_nullifier").map(hashOf);
    expect(asked).toHaveLength(8);
    expect(new Set(asked).size).toBe(4);
    expect(asked.slice(4)).toEqual(asked.slice(0, 4));

    // relay of n9.json to a fresh recipient, with these flags.
    const relayN9 = (...flags: string[]) => run("relay", "--keypair", "login.json", "--note", "n9.json", "--recipient", Keypair.generate().address, ...flags);
    proxy.requests.length = 0;
    const linked = await relayN9("--relay-links-deposit", "--yes");
    expect(linked.code, linked.err).toBe(0);
    expect(linked.err).toContain("the relay is told which leaf and nullifier this withdrawal spends");
    expect(proxy.requests.filter((q) => q.endpoint === "get_proof").map(leafOf)).toEqual([9]);
    expect(proxy.requests.filter((q) => q.endpoint === "get_nullifier").map(hashOf)).toEqual(Array(2).fill(Array.from(notes[9]!.nullifierHash).join(",")));

    // prove looks the note up the same way.
    expect(saveNote(path.join(dir, "n11.json"), notes[11]!).ok).toBe(true);
    proxy.requests.length = 0;
    const proved = await run("prove", "--note", "n11.json", "--recipient", Keypair.generate().address, "--decoys", "2");
    expect(proved.code, proved.err).toBe(0);
    const proveLeaves = proxy.requests.filter((q) => q.endpoint === "get_proof").map(leafOf);
    expect(new Set(proveLeaves).size).toBe(3);
    expect(proveLeaves).toContain(11);
    expect(proxy.requests.filter((q) => q.endpoint === "get_nullifier")).toHaveLength(3);
    expect(proxy.requests.filter(isLookup).every((q) => q.token === null)).toBe(true);

    // Contradictory lookups are refused before anything is sent.
    proxy.requests.length = 0;
    expect(await relayN9("--decoys", "65")).toMatchObject({ code: 2 });
    expect(await relayN9("--rpc", "http://127.0.0.1:1", "--decoys", "2")).toMatchObject({ code: 2 });
    expect(await relayN9("--program", depositor.address)).toMatchObject({ code: 2 });
    expect(proxy.requests).toEqual([]);
  }, 180_000);

  it("without --rpc, relay-cli relay reads the relay's whole leaf list: decoys only among leaves that could hold the piece, and the plan's exact anonymity set", async () => {
    // Small deposits that cannot hold a piece of 500,000.
    const funded = await direct.sandboxAirdrop({ network: "mainnet", wallet: depositor.address, mint: WSOL, amount: 60_000n });
    if (!funded.ok) throw new Error(JSON.stringify(funded));
    const small: number[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await createNote({ network: "mainnet", mint: WSOL, amount: 10_000n, hasher });
      if (!created.ok) throw new Error(created.error);
      const d = await sandboxDeposit(direct, depositor, created.value);
      if (!d.ok) throw new Error(JSON.stringify(d));
      small.push(d.value.deposit!.leafIndex!);
    }
    const tree = await direct.getMerkle(WSOL, "mainnet");
    if (!tree.ok) throw new Error(JSON.stringify(tree));
    const nextIndex = tree.value.json.nextIndex;
    // Every leaf but the six small deposits: the 1,000,000 deposits and the change leaves of the withdrawals above.
    const eligible = nextIndex - small.length;

    expect(saveNote(path.join(dir, "n3.json"), notes[3]!).ok).toBe(true);
    proxy.requests.length = 0;
    const argv = ["relay", "--keypair", "login.json", "--note", "n3.json", "--recipient", Keypair.generate().address];
    const { code, err } = await runCaptured([...argv, "--amount", "500000", "--floor", "1000", "--decoys", "8", "--yes"], dir, proxy.url);
    expect(code, err).toBe(0);
    expect(err).toContain(`piece 1: 500000`);
    expect(err).toMatch(new RegExp(`piece 1: 500000, [^\n]*; anonymity set ${eligible} leaves\n`));
    expect(err).not.toContain("at most");

    const lists = proxy.requests.filter((q) => q.endpoint === "get_leaves");
    // Once for the plan, once for the piece's lookup: the whole list from leaf 0, without a token.
    expect(lists.length).toBeGreaterThanOrEqual(2);
    for (const q of lists) {
      expect(q.token).toBeNull();
      expect(JSON.parse(q.body || "{}")).toEqual({ from: 0 });
    }
    const asked = proxy.requests.filter((q) => q.endpoint === "get_proof").map(leafOf);
    expect(new Set(asked).size).toBe(9);
    expect(asked).toContain(3);
    expect(asked.filter((i) => small.includes(i))).toEqual([]);
  }, 180_000);
});
