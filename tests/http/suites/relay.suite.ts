import { readFileSync } from "node:fs";
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rootFromPath } from "../../../src-client/sdk/tree";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { bigIntToBytes32, FIELD_MODULUS } from "../../../src-shared/encoding/field";
import { BASE_FIELD_MODULUS, encodeProof, fromSnarkjs, type SnarkjsProof } from "../../../src-shared/zk/proof-codec";
import { changeNoteAt, prepareWithdrawal, testRecipient, type PreparedWithdrawal, type RelayBody } from "../../support/proofs";
import type { HarnessFactory, RelayHarness } from "../../support/harness";
import { startRelay } from "../../support/relay-process";
import { randomPrecommitment, USDC } from "../../support/sandbox";
import { get, newWallet, post, type TestWallet } from "../../support/wallet";

const SANCTIONED = "FuCC7GoYwt5TsNTjWL23Xx9UKCvC18chjMEFPL3vJDCC"; // OFAC SDN, resources/sanctions
const enc = new TextEncoder();

/**
 * POST /relay against a running relay whose `mainnet` network is the harness's
 * backend: every spec error, the race of identical relays, sanctions, bad input,
 * and protocol v3's partial withdrawals (a note withdrawn in pieces through its
 * change notes) and change commitment.
 */
export function relaySuite(start: HarnessFactory): void {
  let h: RelayHarness;
  let relay: { url: string };
  let depositor: TestWallet;
  let token: string;
  let valid: PreparedWithdrawal;
  let rootBefore: number[];

  const login = async (url: string, w: TestWallet): Promise<string> => {
    const t = Math.floor(Date.now() / 1000);
    const r = await post(`${url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t });
    return (r.json as { id: string }).id;
  };
  const relayAs = (body: unknown, auth: string | null = token) => post(`${relay.url}/relay`, body, auth ? { "x-api-auth": auth } : {});
  const balance = (wallet: string, mint = USDC): Promise<bigint> => h.chain.balance(wallet, mint);

  beforeAll(async () => {
    h = await start({ RELAY_RATE_LIMITS: "off" });
    relay = h;
    depositor = newWallet();
    await h.chain.fund(depositor, 100_000_000, USDC);
    token = await login(relay.url, depositor);
    // A root from the pool's history that the proof was not made against.
    await h.chain.deposit(depositor, Uint8Array.from(randomPrecommitment()), 1000, USDC);
    rootBefore = ((await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`)).json as { json: { root: number[] } }).json.root;
    valid = await prepareWithdrawal(relay.url, depositor, USDC, { recipient: testRecipient("relay-main"), amount: 1_000_000, chain: h.chain });
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  /** What a refused relay must leave as it was: the tree, the vault, the recipient, the nullifier. */
  const stored = async (w: PreparedWithdrawal = valid) => ({
    tree: (await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`)).json,
    vault: await h.chain.vaultBalance(USDC),
    recipient: await balance(w.body.recipient),
    nullifier: (await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: w.body.nullifierHash })).json,
  });
  const V3 = "does not verify under protocol v3";

  const mutate = (f: (b: RelayBody) => void): RelayBody => {
    const b = structuredClone(valid.body);
    f(b);
    return b;
  };
  const setWord = (proof: number[], word: number, value: bigint): void => {
    proof.splice(32 * word, 32, ...bigIntToBytes32(value));
  };

  describe("POST /relay: the proof binds every public input (nothing is spent on refusal)", () => {
    it.each<[string, (b: RelayBody) => void]>([
      ["another recipient", (b) => (b.recipient = testRecipient("someone-else"))],
      ["a larger depositSize", (b) => (b.depositSize += 1)],
      ["a smaller depositSize", (b) => (b.depositSize -= 1)],
      ["another (unspent) nullifierHash", (b) => (b.nullifierHash[31] = (b.nullifierHash[31]! + 1) % 256)],
      ["an older root of the same pool", (b) => (b.root = rootBefore)],
      ["a flipped byte in A", (b) => (b.proof[5] = b.proof[5]! ^ 0x01)],
      ["a flipped byte in B", (b) => (b.proof[100] = b.proof[100]! ^ 0x80)],
      ["a flipped byte in C", (b) => (b.proof[255] = b.proof[255]! ^ 0x01)],
      [
        "A moved off the curve (y + 1)",
        (b) => setWord(b.proof, 1, (BigInt("0x" + Buffer.from(b.proof.slice(32, 64)).toString("hex")) + 1n) % BASE_FIELD_MODULUS),
      ],
      ["B with c0 and c1 swapped", (b) => b.proof.splice(64, 64, ...b.proof.slice(96, 128), ...b.proof.slice(64, 96))],
      ["A and C swapped", (b) => b.proof.splice(0, 256, ...b.proof.slice(192, 256), ...b.proof.slice(64, 192), ...b.proof.slice(0, 64))],
      ["an all-zero proof (points at infinity)", (b) => b.proof.fill(0)],
      ["coordinates not below the base field modulus", (b) => b.proof.fill(255)],
      ["a coordinate equal to the base field modulus", (b) => setWord(b.proof, 0, BASE_FIELD_MODULUS)],
      // Protocol v3: the change leaf is the seventh public input.
      ["a changeCommitment altered after proving", (b) => (b.changeCommitment = Array.from(bigIntToBytes32(123_456_789n)))],
      [
        "a changeCommitment one above the proved one",
        (b) => (b.changeCommitment = Array.from(bigIntToBytes32(BigInt("0x" + Buffer.from(b.changeCommitment).toString("hex")) + 1n))),
      ],
      ["another note's change commitment", (b) => (b.changeCommitment = [...b.nullifierHash])],
    ])("refuses %s with 400 InvalidProof naming protocol v3, nothing spent, sent or stored", async (_name, f) => {
      const before = await stored();
      const r = await relayAs(mutate(f));
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "InvalidProof", message: expect.stringContaining(V3) });
      expect(await stored()).toEqual(before);
    });

    it("refuses a root the pool never had with 400 InvalidRoot", async () => {
      const r = await relayAs(mutate((b) => (b.root = Array.from(bigIntToBytes32(123456789n)))));
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "InvalidRoot" });
    });

    it("refuses a mint whose pool does not exist with 400 InvalidRoot", async () => {
      const r = await relayAs(mutate((b) => (b.mint = newWallet().address)));
      expect(r.json).toMatchObject({ status: 400, error: "InvalidRoot" });
    });

    it("left the nullifier unspent through all of the above", async () => {
      const r = await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: valid.body.nullifierHash });
      expect(r.json).toEqual({ address: null, json: null });
    });
  });

  describe("POST /relay: authentication (x-api-auth login token)", () => {
    it("answers 401 Unauthorized without x-api-auth, and with an unknown token", async () => {
      for (const auth of [null, "7d444840-9dc0-11d1-b245-5ffdce74fad2", "garbage"]) {
        const r = await relayAs(valid.body, auth);
        expect(r.status).toBe(401);
        expect(r.json).toMatchObject({ status: 401, error: "Unauthorized" });
      }
    });
  });

  describe("POST /relay: a valid withdrawal", () => {
    it("succeeds exactly once when 8 identical relays race, pays depositSize - fee, and spends the nullifier", async () => {
      const fees = (await get(`${relay.url}/fees`)).json as { default: { bps: number; floor: string } };
      const expectedFee = (() => {
        const p = (1_000_000n * BigInt(fees.default.bps)) / 10_000n;
        const floor = BigInt(fees.default.floor);
        return p > floor ? p : floor;
      })();
      const recipient = valid.body.recipient;
      const before = await balance(recipient);
      const vaultBefore = await h.chain.vaultBalance(USDC);
      const treeBefore = ((await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`)).json as { json: { nextIndex: number } }).json.nextIndex;

      const answers = await Promise.all(Array.from({ length: 8 }, () => relayAs(valid.body)));
      const ok = answers.filter((a) => a.status === 200);
      expect(ok).toHaveLength(1);
      expect(ok[0]!.json).toEqual({ status: 200, signature: expect.any(String), changeLeafIndex: expect.any(Number) });
      // One withdrawal, one change leaf (nothing is left of this note, and the leaf is inserted all the same).
      const changeLeafIndex = (ok[0]!.json as { changeLeafIndex: number }).changeLeafIndex;
      expect(changeLeafIndex).toBeGreaterThanOrEqual(treeBefore);
      expect(await h.chain.vaultBalance(USDC)).toBe(vaultBefore - 1_000_000n);
      expect((ok[0]!.json as { signature: string }).signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status).toBe(400);
        expect(a.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
      }
      expect((await balance(recipient)) - before).toBe(1_000_000n - expectedFee);

      const pda = PublicKey.findProgramAddressSync(
        [enc.encode("nullifier"), new PublicKey(USDC).toBytes(), Uint8Array.from(valid.body.nullifierHash)],
        new PublicKey(h.programId),
      )[0].toBase58();
      const spent = await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: valid.body.nullifierHash });
      expect(spent.json).toEqual({ address: pda, json: { spent: true } });

      const again = await relayAs(valid.body);
      expect(again.status).toBe(400);
      expect(again.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
    });

    it("refuses a withdrawal to a sanctioned address (real OFAC SDN SOL entry) with 400 OFACCheckFailed", async () => {
      const w = await prepareWithdrawal(relay.url, depositor, USDC, { recipient: SANCTIONED, amount: 500_000, chain: h.chain });
      const r = await relayAs(w.body);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "OFACCheckFailed" });
      expect(await balance(SANCTIONED)).toBe(0n);
    });
  });

  describe("POST /relay: the proof binds this relay's terms (protocol v2; nothing is spent on refusal)", () => {
    let published: { relayer: string; fee: bigint };
    let fresh: PreparedWithdrawal;
    const v1 = JSON.parse(readFileSync(new URL("../../support/v1-proof.json", import.meta.url), "utf8")) as { proof: SnarkjsProof };
    const v2 = JSON.parse(readFileSync(new URL("../../support/v2-proof.json", import.meta.url), "utf8")) as { proof: SnarkjsProof; publicSignals: string[] };

    beforeAll(async () => {
      const fees = (await get(`${relay.url}/fees`)).json as { relayers: Record<string, string | null> };
      published = { relayer: fees.relayers.mainnet!, fee: 2_500n };
      fresh = await prepareWithdrawal(relay.url, depositor, USDC, { recipient: testRecipient("relay-v2-terms"), amount: 1_000_000, chain: h.chain });
      expect(fresh.terms).toMatchObject(published);
    }, 120_000);

    const send = (over: Partial<Record<keyof RelayBody, unknown>>, drop: (keyof RelayBody)[] = []) => {
      const b: Record<string, unknown> = { ...structuredClone(fresh.body), ...over };
      for (const k of drop) delete b[k];
      return relayAs(b);
    };
    const unspent = async (w: PreparedWithdrawal) =>
      expect((await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: w.body.nullifierHash })).json).toEqual({
        address: null,
        json: null,
      });

    it("GET /fees names the key that signs this network's withdrawals and receives the fee", async () => {
      const r = (await get(`${relay.url}/fees`)).json as { relayers: Record<string, string | null>; graceSec: number };
      expect(r.relayers.mainnet).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      expect(r.graceSec).toBe(120);
    });

    it("refuses a fee changed under the proof with 400 InvalidProof", async () => {
      const r = await send({ fee: Number(published.fee) + 1 });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "InvalidProof" });
      await unspent(fresh);
    });

    it("refuses a fee below the published one with 400 FeeTooLow saying what the fee is", async () => {
      for (const fee of [Number(published.fee) - 1, 0, "2499"]) {
        const r = await send({ fee });
        expect(r.status).toBe(400);
        expect(r.json).toMatchObject({ status: 400, error: "FeeTooLow", message: expect.stringContaining(`fee of ${published.fee}`) });
      }
      await unspent(fresh);
    });

    it("refuses a fee above depositSize with 400 InvalidRequest naming fee", async () => {
      const r = await send({ fee: 1_000_001 });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "InvalidRequest", message: expect.stringMatching(/^fee: /) });
    });

    it("refuses a relayer that is not this relay's with 400 InvalidRequest naming relayer and the expected key", async () => {
      const r = await send({ relayer: testRecipient("another-relayer") });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "InvalidRequest", message: expect.stringContaining(published.relayer) });
      expect((r.json as { message: string }).message.startsWith("relayer: ")).toBe(true);
    });

    it("refuses a proof made for another relayer with 400 InvalidProof, even when the body names this relay", async () => {
      const other = await prepareWithdrawal(relay.url, depositor, USDC, {
        recipient: testRecipient("relay-v2-other-relayer"),
        amount: 1_000_000,
        chain: h.chain,
        relayer: testRecipient("another-relayer"),
      });
      for (const body of [{ ...other.body, relayer: published.relayer }, (({ relayer: _r, ...rest }) => rest)(other.body)]) {
        const r = await relayAs(body);
        expect(r.status).toBe(400);
        expect(r.json).toMatchObject({ status: 400, error: "InvalidProof" });
      }
      await unspent(other);
    }, 60_000);

    it("refuses a real protocol v1 proof (five public inputs, the retired key) with 400 InvalidProof naming protocol v3", async () => {
      const r = await send({ proof: Array.from(encodeProof(fromSnarkjs(v1.proof))) });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "InvalidProof", message: expect.stringContaining("does not verify under protocol v3") });
      await unspent(fresh);
    });

    it("refuses a real protocol v2 proof (six public inputs, the retired v2 key) with 400 InvalidProof naming protocol v3", async () => {
      const before = await stored(fresh);
      const r = await send({ proof: Array.from(encodeProof(fromSnarkjs(v2.proof))) });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "InvalidProof", message: expect.stringContaining("does not verify under protocol v3") });
      expect(await stored(fresh)).toEqual(before);
    });

    it("charges a fee above the published one exactly as proved: the recipient gets depositSize - fee, the relayer the fee", async () => {
      const fee = published.fee * 3n;
      const generous = await prepareWithdrawal(relay.url, depositor, USDC, {
        recipient: testRecipient("relay-v2-generous"),
        amount: 1_000_000,
        chain: h.chain,
        fee,
      });
      const before = { recipient: await balance(generous.body.recipient), relayer: await balance(published.relayer) };
      const r = await relayAs(generous.body);
      expect(r.status).toBe(200);
      expect((await balance(generous.body.recipient)) - before.recipient).toBe(1_000_000n - fee);
      expect((await balance(published.relayer)) - before.relayer).toBe(fee);
    }, 60_000);

    it("relays a body without fee and relayer at the published fee, paying exactly depositSize - fee", async () => {
      const before = { recipient: await balance(fresh.body.recipient), relayer: await balance(published.relayer) };
      const r = await send({}, ["fee", "relayer"]);
      expect(r.status).toBe(200);
      expect((await balance(fresh.body.recipient)) - before.recipient).toBe(1_000_000n - published.fee);
      expect((await balance(published.relayer)) - before.relayer).toBe(published.fee);
    });
  });

  describe("POST /relay: malformed requests answer 400 InvalidRequest naming the field", () => {
    const base = (): Record<string, unknown> => structuredClone(valid.body) as unknown as Record<string, unknown>;
    it.each<[string, (b: Record<string, unknown>) => void, string]>([
      ["a missing nullifierHash", (b) => delete b.nullifierHash, "nullifierHash"],
      ["a 31-byte nullifierHash", (b) => (b.nullifierHash = (b.nullifierHash as number[]).slice(1)), "nullifierHash"],
      ["a nullifierHash not below the field modulus", (b) => (b.nullifierHash = new Array(32).fill(255)), "nullifierHash"],
      ["a 255-byte proof", (b) => (b.proof = (b.proof as number[]).slice(1)), "proof"],
      ["a proof byte of 256", (b) => ((b.proof as number[])[0] = 256), "proof"],
      ["a proof of strings", (b) => (b.proof = (b.proof as number[]).map(String)), "proof"],
      ["a 100,000-element proof", (b) => (b.proof = new Array(100_000).fill(0)), "proof"],
      ["a root of 33 bytes", (b) => (b.root = [...(b.root as number[]), 0]), "root"],
      ["a recipient that is not base58", (b) => (b.recipient = "0OIl"), "recipient"],
      ["a 100,000-character recipient", (b) => (b.recipient = "2".repeat(100_000)), "recipient"],
      ["depth 31", (b) => (b.depth = 31), "depth"],
      ["depth as text", (b) => (b.depth = "32"), "depth"],
      ["a negative depositSize", (b) => (b.depositSize = -1), "depositSize"],
      ["a depositSize of 0", (b) => (b.depositSize = 0), "depositSize"],
      ["a fractional depositSize", (b) => (b.depositSize = 1.5), "depositSize"],
      ["a depositSize above 2^53", (b) => (b.depositSize = 2 ** 60), "depositSize"],
      ["a mint that is not a key", (b) => (b.mint = "abc"), "mint"],
      ["an unknown network", (b) => (b.network = "testnet"), "network"],
      // Protocol v3: the change commitment is required, a non-zero field element of 32 bytes.
      ["a missing changeCommitment (a v2 client)", (b) => delete b.changeCommitment, "changeCommitment"],
      ["a zero changeCommitment", (b) => (b.changeCommitment = new Array(32).fill(0)), "changeCommitment"],
      ["a 31-byte changeCommitment", (b) => (b.changeCommitment = (b.changeCommitment as number[]).slice(1)), "changeCommitment"],
      ["a 33-byte changeCommitment", (b) => (b.changeCommitment = [...(b.changeCommitment as number[]), 1]), "changeCommitment"],
      ["a changeCommitment equal to the field modulus", (b) => (b.changeCommitment = Array.from(bigIntToBytes32(FIELD_MODULUS))), "changeCommitment"],
      ["a changeCommitment of all 0xff", (b) => (b.changeCommitment = new Array(32).fill(255)), "changeCommitment"],
      ["a changeCommitment as hex text", (b) => (b.changeCommitment = Buffer.from(b.changeCommitment as number[]).toString("hex")), "changeCommitment"],
      ["a changeCommitment of strings", (b) => (b.changeCommitment = (b.changeCommitment as number[]).map(String)), "changeCommitment"],
      ["a changeCommitment byte of 256", (b) => ((b.changeCommitment as number[])[0] = 256), "changeCommitment"],
      ["a changeCommitment of null", (b) => (b.changeCommitment = null), "changeCommitment"],
    ])("%s", async (_name, f, field) => {
      const b = base();
      f(b);
      const before = await stored();
      const r = await relayAs(b);
      expect(await stored()).toEqual(before);
      expect([400, 413]).toContain(r.status);
      const body = r.json as { status: number; error: string; message: string };
      expect(body.status).toBe(r.status);
      if (r.status === 400) {
        expect(body.error).toBe("InvalidRequest");
        expect(body.message.startsWith(field)).toBe(true);
      } else {
        expect(body.error).toBe("PayloadTooLarge");
      }
    });

    it("answers malformed JSON in the relay result shape", async () => {
      const r = await post(`${relay.url}/relay`, "{nope", { "x-api-auth": token });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "InvalidRequest" });
    });
  });

  describe("POST /relay: protocol v3 withdraws any part of a note, the rest staying in a change note", () => {
    const DEPOSIT = 3_000_000;
    const parts: { label: string; withdraw: number | null }[] = [
      { label: "A", withdraw: 1_000_000 },
      { label: "B", withdraw: 500_000 },
      { label: "C", withdraw: null }, // the rest
    ];

    it("deposit 3,000,000; withdraw 1,000,000 to A, 500,000 of the change to B, the rest to C: each gets its part less the fee, the vault drops by exactly what was paid out", async () => {
      const fees = (await get(`${relay.url}/fees`)).json as { default: { bps: number; floor: string } };
      const feeOf = (x: bigint): bigint => {
        const p = (x * BigInt(fees.default.bps)) / 10_000n;
        const floor = BigInt(fees.default.floor);
        return p > floor ? p : floor;
      };
      const relayer = ((await get(`${relay.url}/fees`)).json as { relayers: Record<string, string> }).relayers.mainnet!;
      let spend: PreparedWithdrawal["note"] | undefined;
      let left = BigInt(DEPOSIT);
      for (const part of parts) {
        const recipient = testRecipient(`relay-v3-partial-${part.label}`);
        const w = await prepareWithdrawal(relay.url, depositor, USDC, {
          recipient,
          chain: h.chain,
          ...(spend ? { spend } : { amount: DEPOSIT }),
          ...(part.withdraw !== null ? { withdraw: part.withdraw } : {}),
        });
        const withdrawn = BigInt(part.withdraw ?? Number(left));
        expect(BigInt(w.body.depositSize), part.label).toBe(withdrawn);
        expect(w.change.amount, part.label).toBe(left - withdrawn);
        const before = { recipient: await balance(recipient), vault: await h.chain.vaultBalance(USDC), relayer: await balance(relayer) };
        const treeBefore = ((await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`)).json as { json: { nextIndex: number } }).json.nextIndex;

        const r = await relayAs(w.body);
        expect(r.status, `${part.label}: ${JSON.stringify(r.json)}`).toBe(200);
        const { changeLeafIndex } = r.json as { changeLeafIndex: number };
        expect(changeLeafIndex, part.label).toBeGreaterThanOrEqual(treeBefore);

        const fee = feeOf(withdrawn);
        expect((await balance(recipient)) - before.recipient, part.label).toBe(withdrawn - fee);
        expect(before.vault - (await h.chain.vaultBalance(USDC)), part.label).toBe(withdrawn);
        expect((await balance(relayer)) - before.relayer, part.label).toBe(fee);

        // The change leaf is in the relay's tree, and its proof rebuilds the root: the next piece spends it.
        const node = await post(`${relay.url}/get_node/${USDC}/32/${2 ** 32 + changeLeafIndex}/mainnet`);
        expect((node.json as { json: { value: number[] } }).json.value, part.label).toEqual(w.body.changeCommitment);
        const proof = await post(`${relay.url}/get_proof/${USDC}/32/${changeLeafIndex}/mainnet`);
        expect(proof.status, part.label).toBe(200);
        const { path, indices } = (proof.json as { json: { path: number[][]; indices: number[] } }).json;
        const tree = ((await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`)).json as { json: { root: number[]; nextIndex: number } }).json;
        expect(tree.nextIndex, part.label).toBeGreaterThan(changeLeafIndex);
        const rebuilt = rootFromPath(
          await createPoseidonHasher(),
          Uint8Array.from(w.body.changeCommitment),
          path.map((p) => Uint8Array.from(p)),
          indices,
        );
        expect(Array.from(rebuilt), part.label).toEqual(tree.root);
        left -= withdrawn;
        spend = changeNoteAt(w, changeLeafIndex);
      }
      expect(left).toBe(0n);
    }, 180_000);
  });

  describe("POST /relay: withdrawals of one pool at once each insert their own change leaf", () => {
    it("lands two different notes relayed at the same moment, each answer naming where its change leaf went", async () => {
      const ws = [];
      for (const label of ["x", "y"]) {
        ws.push(
          await prepareWithdrawal(relay.url, depositor, USDC, {
            recipient: testRecipient(`relay-v3-concurrent-${label}`),
            amount: 800_000,
            withdraw: 300_000,
            chain: h.chain,
          }),
        );
      }
      const answers = await Promise.all(ws.map((w) => relayAs(w.body)));
      for (const a of answers) expect(a.status, JSON.stringify(a.json)).toBe(200);
      const indices = answers.map((a) => (a.json as { changeLeafIndex: number }).changeLeafIndex);
      expect(new Set(indices).size).toBe(2);
      for (const [i, w] of ws.entries()) {
        const node = await post(`${relay.url}/get_node/${USDC}/32/${2 ** 32 + indices[i]!}/mainnet`);
        expect((node.json as { json: { value: number[] } }).json.value).toEqual(w.body.changeCommitment);
      }
    }, 120_000);
  });

  describe("GET /fees", () => {
    it("publishes the fee formula, the default, per-pool overrides and each network's fee receiver", async () => {
      const r = await get(`${relay.url}/fees`);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        default: { bps: 25, floor: "0" },
        pools: { mainnet: {}, devnet: {} },
        relayers: { mainnet: expect.any(String) },
        graceSec: 120,
      });
    });
  });

  describe("POST /relay rate limit", () => {
    it("refuses the 11th relay in a minute with 429 { status: 429, error: RateLimited } and Retry-After", async () => {
      const limited = await startRelay();
      try {
        for (let i = 0; i < 10; i++) expect((await post(`${limited.url}/relay`, {})).status).toBe(400);
        const r = await post(`${limited.url}/relay`, {});
        expect(r.status).toBe(429);
        expect(r.json).toEqual({ status: 429, error: "RateLimited" });
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      } finally {
        await limited.stop();
        limited.cleanup();
      }
    });
  });
}
