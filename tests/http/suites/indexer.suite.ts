import { buildPoseidon, type Poseidon } from "circomlibjs";
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesToBigInt, FIELD_MODULUS, bigIntToBytes32 } from "../../../src-shared/encoding/field";
import { DEFAULT_TEST_PROGRAM_ID, type HarnessFactory, type RelayHarness } from "../../support/harness";
import { randomPrecommitment, USDC, WSOL } from "../../support/sandbox";
import { newWallet, post } from "../../support/wallet";

/**
 * The indexer endpoints (get_merkle, get_proof, get_node, get_nullifier)
 * against a relay whose `mainnet` network is the harness's backend; devnet
 * stays the sandbox in every harness.
 */
export function indexerSuite(start: HarnessFactory): void {
  let h: RelayHarness;
  let relay: { url: string };
  let poseidon: Poseidon;
  const H = (a: bigint, b: bigint): bigint => poseidon.F.toObject(poseidon([a, b]));
  const enc = new TextEncoder();
  const program = new PublicKey(DEFAULT_TEST_PROGRAM_ID);
  const treePda = (mint: string): string => PublicKey.findProgramAddressSync([enc.encode("merkle_tree"), new PublicKey(mint).toBytes()], program)[0].toBase58();

  interface MerkleAnswer {
    address: string;
    json: { root: number[]; nextIndex: number; depth: number };
  }
  interface ProofAnswer {
    address: string;
    json: { path: number[][]; indices: number[] };
  }

  const commitments: number[][] = [];

  beforeAll(async () => {
    poseidon = await buildPoseidon();
    h = await start({ RELAY_RATE_LIMITS: "off" });
    relay = h;
    const w = newWallet();
    await h.chain.fund(w, 1_000_000, USDC);
    for (let i = 0; i < 3; i++) {
      // Protocol v2: the pool computes each leaf from the precommitment and the amount it received.
      const d = await h.chain.deposit(w, Uint8Array.from(randomPrecommitment()), 1000, USDC);
      expect(d).toMatchObject({ status: "indexed", leafIndex: i });
      commitments.push(Array.from(d.commitment!));
    }
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  describe("POST /get_merkle/{mint}/{depth}/{network}", () => {
    it("answers an empty default pool with the zero root, nextIndex 0, depth 32 and the tree PDA", async () => {
      const r = await post(`${relay.url}/get_merkle/${WSOL}/32/devnet`);
      expect(r.status).toBe(200);
      const body = r.json as MerkleAnswer;
      expect(body.address).toBe(treePda(WSOL));
      expect(body.json.nextIndex).toBe(0);
      expect(body.json.depth).toBe(32);
      let z = 0n;
      for (let i = 0; i < 32; i++) z = H(z, z);
      expect(bytesToBigInt(Uint8Array.from(body.json.root))).toBe(z);
    });

    it("reflects deposits: nextIndex counts them and the root is the tree of their commitments", async () => {
      const body = (await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`)).json as MerkleAnswer;
      expect(body.json.nextIndex).toBe(3);
      const leaves = commitments.map((c) => bytesToBigInt(Uint8Array.from(c)));
      let level = leaves;
      let zero = 0n;
      for (let d = 0; d < 32; d++) {
        const next: bigint[] = [];
        for (let i = 0; i < level.length; i += 2) next.push(H(level[i]!, level[i + 1] ?? zero));
        level = next;
        zero = H(zero, zero);
      }
      expect(bytesToBigInt(Uint8Array.from(body.json.root))).toBe(level[0]);
    });

    it("keeps networks apart: the same mint on devnet has its own empty tree", async () => {
      const body = (await post(`${relay.url}/get_merkle/${USDC}/32/devnet`)).json as MerkleAnswer;
      expect(body.json.nextIndex).toBe(0);
    });

    it.each([
      [`/get_merkle/${newWallet().address}/32/mainnet`, 404, "PoolNotFound"],
      [`/get_merkle/${WSOL}/32/testnet`, 400, "InvalidNetwork"],
      [`/get_merkle/${WSOL}/20/mainnet`, 400, "InvalidDepth"],
      [`/get_merkle/${WSOL}/abc/mainnet`, 400, "InvalidDepth"],
      [`/get_merkle/not-base58-0OIl/32/mainnet`, 400, "InvalidMint"],
      [`/get_merkle/${"1".repeat(100_000).slice(0, 5000)}/32/mainnet`, 400, "InvalidMint"],
      [`/get_merkle/3yZe7d/32/mainnet`, 400, "InvalidMint"],
    ])("POST %s answers %i %s", async (path, status, error) => {
      const r = await post(`${relay.url}${path}`);
      expect(r.status).toBe(status);
      expect((r.json as { error: string }).error).toBe(error);
    });
  });

  describe("POST /get_proof/{mint}/{depth}/{index}/{network}", () => {
    it("returns 32 siblings and 0/1 indices that rebuild the current root for each leaf", async () => {
      const root = (await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`)).json as MerkleAnswer;
      for (let i = 0; i < 3; i++) {
        const r = await post(`${relay.url}/get_proof/${USDC}/32/${i}/mainnet`);
        expect(r.status).toBe(200);
        const body = r.json as ProofAnswer;
        expect(body.address).toBe(treePda(USDC));
        expect(body.json.path).toHaveLength(32);
        expect(body.json.indices).toHaveLength(32);
        expect(body.json.indices.every((x) => x === 0 || x === 1)).toBe(true);
        let node = bytesToBigInt(Uint8Array.from(commitments[i]!));
        body.json.path.forEach((sib, level) => {
          expect(sib).toHaveLength(32);
          const s = bytesToBigInt(Uint8Array.from(sib));
          node = body.json.indices[level] === 0 ? H(node, s) : H(s, node);
        });
        expect(node).toBe(bytesToBigInt(Uint8Array.from(root.json.root)));
      }
    });

    it("answers a leaf asked again after a deposit from the grown tree: its path leads to the new root", async () => {
      const w = newWallet();
      await h.chain.fund(w, 1_000_000, WSOL);
      const leaves: bigint[] = [];
      const deposit = async (): Promise<void> => {
        const d = await h.chain.deposit(w, Uint8Array.from(randomPrecommitment()), 1000, WSOL);
        expect(d.status).toBe("indexed");
        leaves.push(bytesToBigInt(d.commitment!));
      };
      const rootFromProof = async (leaf: number): Promise<{ root: bigint; path: number[][] }> => {
        const r = await post(`${relay.url}/get_proof/${WSOL}/32/${leaf}/mainnet`);
        expect(r.status).toBe(200);
        const body = r.json as ProofAnswer;
        let node = leaves[leaf]!;
        body.json.path.forEach((sib, level) => {
          const s = bytesToBigInt(Uint8Array.from(sib));
          node = body.json.indices[level] === 0 ? H(node, s) : H(s, node);
        });
        return { root: node, path: body.json.path };
      };
      const currentRoot = async (): Promise<bigint> =>
        bytesToBigInt(Uint8Array.from(((await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json as MerkleAnswer).json.root));

      await deposit();
      await deposit();
      const before = await rootFromProof(0);
      expect(before.root).toBe(await currentRoot());
      expect((await rootFromProof(0)).path).toEqual(before.path);
      await deposit();
      const after = await rootFromProof(0);
      expect(after.root).toBe(await currentRoot());
      expect(after.root).not.toBe(before.root);
      // Leaf 2 sits in leaf 0's level-1 sibling subtree: only that node of the path changed.
      expect(after.path[1]).not.toEqual(before.path[1]);
      expect(after.path.filter((_, level) => level !== 1)).toEqual(before.path.filter((_, level) => level !== 1));
    });

    it.each([
      ["3", 400, "IndexOutOfRange"],
      ["4294967296", 400, "IndexOutOfRange"],
      ["99999999999999999999", 400, "InvalidRequest"],
      ["-1", 400, "InvalidRequest"],
      ["1.5", 400, "InvalidRequest"],
      ["abc", 400, "InvalidRequest"],
    ])("refuses leaf index %s with %i %s", async (index, status, error) => {
      const r = await post(`${relay.url}/get_proof/${USDC}/32/${index}/mainnet`);
      expect(r.status).toBe(status);
      expect((r.json as { error: string }).error).toBe(error);
    });
  });

  describe("POST /get_node/{mint}/{depth}/{index}/{network}", () => {
    it("uses heap order: 1 is the root, 2^32 + j is leaf j, an empty leaf is zero", async () => {
      const root = ((await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`)).json as MerkleAnswer).json.root;
      const node = async (i: number): Promise<number[]> =>
        ((await post(`${relay.url}/get_node/${USDC}/32/${i}/mainnet`)).json as { json: { value: number[] } }).json.value;
      expect(await node(1)).toEqual(root);
      expect(await node(2 ** 32 + 1)).toEqual(commitments[1]);
      expect(await node(2 ** 32 + 3)).toEqual(new Array(32).fill(0));
      const left = bytesToBigInt(Uint8Array.from(commitments[0]!));
      const right = bytesToBigInt(Uint8Array.from(commitments[1]!));
      expect(bytesToBigInt(Uint8Array.from(await node(2 ** 31)))).toBe(H(left, right));
    });

    it.each([["0"], [String(2 ** 33)]])("refuses heap index %s with 400 IndexOutOfRange", async (index) => {
      const r = await post(`${relay.url}/get_node/${USDC}/32/${index}/mainnet`);
      expect(r.status).toBe(400);
      expect((r.json as { error: string }).error).toBe("IndexOutOfRange");
    });
  });

  describe("POST /get_nullifier/{mint}/{depth}/{network}", () => {
    it("answers an unspent nullifier with address null and json null", async () => {
      const r = await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: randomPrecommitment() });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ address: null, json: null });
    });

    const good = randomPrecommitment();
    it.each([
      ["no body", undefined],
      ["a JSON array", []],
      ["nullifierHash missing", {}],
      ["31 bytes", { nullifierHash: good.slice(1) }],
      ["33 bytes", { nullifierHash: [...good, 0] }],
      ["a byte above 255", { nullifierHash: [256, ...good.slice(1)] }],
      ["a negative byte", { nullifierHash: [-1, ...good.slice(1)] }],
      ["a fractional byte", { nullifierHash: [1.5, ...good.slice(1)] }],
      ["strings", { nullifierHash: good.map(String) }],
      ["a hex string", { nullifierHash: "00".repeat(32) }],
      ["the field modulus itself", { nullifierHash: Array.from(bigIntToBytes32(FIELD_MODULUS)) }],
      ["all 0xff", { nullifierHash: new Array(32).fill(255) }],
    ])("refuses %s with 400 InvalidRequest", async (_name, body) => {
      const r = await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, body);
      expect(r.status).toBe(400);
      expect((r.json as { error: string }).error).toBe("InvalidRequest");
    });

    it("refuses malformed JSON with 400 and a body over the limit with 413, and keeps serving", async () => {
      const bad = await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, '{"nullifierHash": [1,2,');
      expect(bad.status).toBe(400);
      expect((bad.json as { error: string }).error).toBe("InvalidRequest");
      const huge = await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: new Array(100_000).fill(1) });
      expect(huge.status).toBe(413);
      expect((huge.json as { error: string }).error).toBe("PayloadTooLarge");
      const after = await post(`${relay.url}/get_merkle/${USDC}/32/mainnet`);
      expect((after.json as MerkleAnswer).json.nextIndex).toBe(3);
    });
  });
}
