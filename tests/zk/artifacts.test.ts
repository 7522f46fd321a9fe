/**
 * Proves that the committed withdraw artifacts (resources/zk) belong to the
 * committed circuit (circuits/withdraw.circom), and that a real proof for a
 * real tree verifies. Never runs the trusted setup (tools/zk/setup.mjs).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPoseidon, type Poseidon } from "circomlibjs";
import { buildBn128, type Bn128Curve } from "ffjavascript";
// @ts-expect-error -- snarkjs ships no type declarations; the slice used here is typed below.
import * as snarkjsUntyped from "snarkjs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

interface Groth16Proof {
  pi_a: string[];
  pi_b: string[][];
  pi_c: string[];
  protocol: string;
  curve: string;
}
interface SnarkjsSlice {
  groth16: {
    fullProve(input: object, wasm: string, zkey: string): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
    verify(vkey: object, publicSignals: string[], proof: Groth16Proof): Promise<boolean>;
  };
  wtns: { calculate(input: object, wasm: string, out: { type: "mem" }): Promise<void> };
  r1cs: { info(path: string): Promise<{ nConstraints: number; nVars: number; nPubInputs: number }> };
}
const snarkjs = snarkjsUntyped as unknown as SnarkjsSlice;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const RES = join(ROOT, "resources/zk");
const WASM = join(RES, "withdraw.wasm");
const ZKEY = join(RES, "withdraw.zkey");
const VKEY = join(RES, "verification_key.json");
const DEPTH = 32;
// ~10 s for the recompile and ~3 s per proof on an idle 2-core machine; headroom for a busy `npm test`.
const SLOW = 120_000;

interface ArtifactsJson {
  circomVersion: string;
  compileFlags: string[];
  constraints: number;
  wires: number;
  publicInputs: string[];
  ptauPower: number;
  seedLabel: string;
  date: string;
  sha256: { r1cs: string; "withdraw.wasm": string; "withdraw.zkey": string; "verification_key.json": string };
}
const artifacts = JSON.parse(readFileSync(join(RES, "artifacts.json"), "utf8")) as ArtifactsJson;
const vkey = JSON.parse(readFileSync(VKEY, "utf8")) as { protocol: string; curve: string; nPublic: number; IC: unknown[] };
const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/**
 * The exact input object the circuit expects (signal names as in docs/zk.md,
 * protocol v3). Every value is a decimal string of a field element;
 * pathIndices[i] is "0" when the path node at level i is a LEFT child, "1"
 * when it is a right child.
 */
interface WithdrawInput {
  // public, in this order
  root: string;
  nullifierHash: string;
  recipient: string; // Poseidon(hi, lo) of the 32-byte recipient pubkey
  amount: string; // the part withdrawn
  mint: string; // Poseidon(hi, lo) of the 32-byte mint pubkey
  extDataHash: string; // Poseidon(relayerField, fee, outputMintField, minOut): the relay's terms
  changeCommitment: string; // the change leaf of value - amount
  // private
  value: string;
  nullifier: string;
  secret: string;
  isChange: string;
  origin: string;
  pathElements: string[]; // DEPTH siblings, leaf level first
  pathIndices: string[]; // DEPTH bits
  changeNullifier: string;
  changeSecret: string;
}

const PUBLIC = ["root", "nullifierHash", "recipient", "amount", "mint", "extDataHash", "changeCommitment"] as const;
const publicOf = (i: WithdrawInput): string[] => PUBLIC.map((k) => i[k]);

/** Reads the zkey groth16 header (section 2): nVars, nPublic, domainSize. */
function zkeyHeader(path: string): { protocol: number; nVars: number; nPublic: number; domainSize: number } {
  const buf = readFileSync(path);
  expect(buf.subarray(0, 4).toString("latin1")).toBe("zkey");
  const nSections = buf.readUInt32LE(8);
  const sections = new Map<number, number>();
  let off = 12;
  for (let i = 0; i < nSections; i++) {
    const type = buf.readUInt32LE(off);
    const size = Number(buf.readBigUInt64LE(off + 4));
    sections.set(type, off + 12);
    off += 12 + size;
  }
  const protocol = buf.readUInt32LE(sections.get(1)!);
  let h = sections.get(2)!;
  const n8q = buf.readUInt32LE(h);
  h += 4 + n8q;
  const n8r = buf.readUInt32LE(h);
  h += 4 + n8r;
  return { protocol, nVars: buf.readUInt32LE(h), nPublic: buf.readUInt32LE(h + 4), domainSize: buf.readUInt32LE(h + 8) };
}

describe("committed zk artifacts", () => {
  it("match the sha256 recorded in artifacts.json", () => {
    expect(sha256(WASM)).toBe(artifacts.sha256["withdraw.wasm"]);
    expect(sha256(ZKEY)).toBe(artifacts.sha256["withdraw.zkey"]);
    expect(sha256(VKEY)).toBe(artifacts.sha256["verification_key.json"]);
  });

  it("verification key is groth16/bn128 with protocol v3's 7 public inputs", () => {
    expect(vkey.protocol).toBe("groth16");
    expect(vkey.curve).toBe("bn128");
    expect(vkey.nPublic).toBe(7);
    expect(vkey.IC).toHaveLength(8);
    expect(artifacts.publicInputs).toEqual([...PUBLIC]);
  });

  it(
    "recompiling circuits/withdraw.circom with the recorded flags gives the recorded r1cs and the committed wasm",
    async () => {
      expect(artifacts.compileFlags).toEqual(["--r1cs", "--wasm", "--O2", "-l", "node_modules"]);
      const out = mkdtempSync(join(tmpdir(), "zk-withdraw-"));
      try {
        const cli = join(dirname(createRequire(import.meta.url).resolve("circom2/package.json")), "cli.js");
        const version = execFileSync(process.execPath, [cli, "--version"], { cwd: ROOT, encoding: "utf8" });
        expect(version).toContain(`circom compiler ${artifacts.circomVersion}`);
        // circom2 is a WASI build: run from the repo root so the include path resolves.
        execFileSync(process.execPath, [cli, "circuits/withdraw.circom", ...artifacts.compileFlags, "-o", out], {
          cwd: ROOT,
          stdio: "pipe",
        });
        const r1csPath = join(out, "withdraw.r1cs");
        expect(sha256(r1csPath)).toBe(artifacts.sha256.r1cs);
        expect(sha256(join(out, "withdraw_js", "withdraw.wasm"))).toBe(artifacts.sha256["withdraw.wasm"]);

        const r1cs = await snarkjs.r1cs.info(r1csPath);
        expect(r1cs.nConstraints).toBe(artifacts.constraints);
        expect(r1cs.nPubInputs).toBe(7);
        const header = zkeyHeader(ZKEY);
        expect(header).toEqual({ protocol: 1, nVars: r1cs.nVars, nPublic: 7, domainSize: 2 ** artifacts.ptauPower });
        expect(r1cs.nConstraints + 7 + 1).toBeLessThanOrEqual(header.domainSize);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});

describe("withdraw proof end to end", () => {
  let curve: Bn128Curve;
  let poseidon: Poseidon;
  const H = (xs: bigint[]): bigint => poseidon.F.toObject(poseidon(xs));

  beforeAll(async () => {
    poseidon = await buildPoseidon();
    // Single-threaded curve for snarkjs (no worker threads: stable timing, clean exit).
    curve = await buildBn128(true);
    (globalThis as { curve_bn128?: unknown }).curve_bn128 = curve;
  });

  afterAll(async () => {
    (globalThis as { curve_bn128?: unknown }).curve_bn128 = null;
    await curve?.terminate();
  });

  /** A 32-byte pubkey enters the circuit as Poseidon(hi, lo), big-endian halves. */
  const pubkeyField = (bytes: Uint8Array): bigint => {
    const be = (b: Uint8Array) => BigInt("0x" + Buffer.from(b).toString("hex"));
    return H([be(bytes.subarray(0, 16)), be(bytes.subarray(16, 32))]);
  };

  /** Root and authentication path of leaves[index] in a depth-32 tree, empty leaves 0. */
  function merklePath(leaves: bigint[], index: number) {
    const zeros = [0n];
    for (let i = 0; i < DEPTH; i++) zeros.push(H([zeros[i]!, zeros[i]!]));
    const pathElements: bigint[] = [];
    const pathIndices: number[] = [];
    let level = leaves.slice();
    let idx = index;
    for (let i = 0; i < DEPTH; i++) {
      const sibling = idx ^ 1;
      pathElements.push(sibling < level.length ? level[sibling]! : zeros[i]!);
      pathIndices.push(idx & 1);
      const next: bigint[] = [];
      for (let j = 0; j < level.length; j += 2) next.push(H([level[j]!, j + 1 < level.length ? level[j + 1]! : zeros[i]!]));
      level = next;
      idx >>= 1;
    }
    return { root: level[0]!, pathElements, pathIndices };
  }

  /** The circuit's selector arithmetic, for any s: left = node + s·(sib − node), right = sib − s·(sib − node). */
  function rootFromPath(leaf: bigint, pathElements: bigint[], pathIndices: bigint[]): bigint {
    const p = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
    const mod = (x: bigint) => ((x % p) + p) % p;
    let node = leaf;
    for (let i = 0; i < DEPTH; i++) {
      const d = mod((pathElements[i]! - node) * pathIndices[i]!);
      node = H([mod(node + d), mod(pathElements[i]! - d)]);
    }
    return node;
  }

  const P = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
  const U64 = 1n << 64n;
  const MINT = Uint8Array.from({ length: 32 }, (_, i) => 0xf0 - i); // bytes >= 0x80 in both halves
  const OTHER_MINT = Uint8Array.from({ length: 32 }, (_, i) => 0x10 + i);
  const RELAYER = Uint8Array.from({ length: 32 }, (_, i) => 0x40 + i);
  const RECIPIENT = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
  const FEE = 2_500_000n;
  const extDataHash = () => H([pubkeyField(RELAYER), FEE, 0n, 0n]);

  /** A note as a wallet holds it (docs/zk.md): its secrets, value, and for a change note its origin. */
  interface Note {
    nullifier: bigint;
    secret: bigint;
    value: bigint;
    /** null: a deposit note (its own leaf is its origin). */
    origin: bigint | null;
    mint?: Uint8Array;
  }
  const precommitment = (n: Note) => H([n.nullifier, n.secret]);
  const depositLeaf = (n: Note) => H([precommitment(n), n.value, pubkeyField(n.mint ?? MINT)]);
  const changeLeaf = (n: Note) => H([precommitment(n), n.value, pubkeyField(n.mint ?? MINT), n.origin!]);
  const leafOf = (n: Note) => (n.origin === null ? depositLeaf(n) : changeLeaf(n));
  const originOf = (n: Note) => n.origin ?? depositLeaf(n);
  /** The wallets' chain rule (DESIGN §10): the change note's secrets follow from the spent note's. */
  const changeNoteOf = (n: Note, amount: bigint): Note => ({
    nullifier: H([n.nullifier, n.secret, 1n]),
    secret: H([n.nullifier, n.secret, 2n]),
    value: (((n.value - amount) % P) + P) % P,
    origin: originOf(n),
  });

  // The tree: deposits of mixed values (leaves 0..3) and a change note of deposit 1 (leaf 4); built once Poseidon is.
  const deposits: Note[] = [0, 1, 2, 3].map((i) => ({
    nullifier: 1000n + BigInt(i),
    secret: 0xabcdef000n + BigInt(i),
    value: 1_000_000n * BigInt(i + 1),
    origin: null,
  }));
  let change4: Note;
  let notes: Note[];
  beforeAll(() => {
    change4 = changeNoteOf(deposits[1]!, 500_000n); // 2,000,000 - 500,000 = 1,500,000 left, origin = leaf 1
    notes = [...deposits, change4];
  });

  /** The witness input for withdrawing `amount` of notes[index]; `tamper` changes it after the honest values are computed. */
  function buildInput(index: number, amount: bigint, leaves?: bigint[], note?: Note): WithdrawInput {
    leaves ??= notes.map(leafOf);
    note ??= notes[index]!;
    const { root, pathElements, pathIndices } = merklePath(leaves, index);
    // The path recomputes the root under the circuit's arithmetic.
    expect(rootFromPath(leaves[index]!, pathElements, pathIndices.map(BigInt))).toBe(root);
    const change = changeNoteOf(note, amount);
    return {
      root: root.toString(),
      nullifierHash: H([note.nullifier]).toString(),
      recipient: pubkeyField(RECIPIENT).toString(),
      amount: amount.toString(),
      mint: pubkeyField(note.mint ?? MINT).toString(),
      extDataHash: extDataHash().toString(),
      changeCommitment: changeLeaf(change).toString(),
      value: note.value.toString(),
      nullifier: note.nullifier.toString(),
      secret: note.secret.toString(),
      isChange: note.origin === null ? "0" : "1",
      origin: originOf(note).toString(),
      pathElements: pathElements.map(String),
      pathIndices: pathIndices.map(String),
      changeNullifier: change.nullifier.toString(),
      changeSecret: change.secret.toString(),
    };
  }

  it(
    "fullProve + verify a partial withdrawal of a deposit note; altered public inputs are rejected",
    async () => {
      const input = buildInput(3, 1_000_000n); // index 3 = 0b11: right child at levels 0 and 1
      expect(Object.keys(input)).toEqual([
        ...PUBLIC,
        "value",
        "nullifier",
        "secret",
        "isChange",
        "origin",
        "pathElements",
        "pathIndices",
        "changeNullifier",
        "changeSecret",
      ]);
      expect(input.pathIndices.slice(0, 4)).toEqual(["1", "1", "0", "0"]);

      const { proof, publicSignals } = await snarkjs.groth16.fullProve({ ...input }, WASM, ZKEY);
      // snarkjs outputs the public signals in the circuit's order.
      expect(publicSignals).toEqual(publicOf(input));
      expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(true);

      const expected = publicOf(input);
      const replace = (i: number, v: string) => expected.map((x, j) => (j === i ? v : x));
      expect(await snarkjs.groth16.verify(vkey, replace(2, pubkeyField(new Uint8Array(32).fill(9)).toString()), proof)).toBe(false);
      expect(await snarkjs.groth16.verify(vkey, replace(3, "1"), proof)).toBe(false);
      // The relay's terms: another fee or another fee receiver gives another extDataHash.
      expect(await snarkjs.groth16.verify(vkey, replace(5, H([pubkeyField(RELAYER), FEE + 1n, 0n, 0n]).toString()), proof)).toBe(false);
      expect(await snarkjs.groth16.verify(vkey, replace(5, H([pubkeyField(new Uint8Array(32).fill(3)), FEE, 0n, 0n]).toString()), proof)).toBe(false);
      // The change leaf is bound: a proof replayed with another change commitment does not verify.
      expect(await snarkjs.groth16.verify(vkey, replace(6, (BigInt(input.changeCommitment) + 1n).toString()), proof)).toBe(false);
    },
    SLOW,
  );

  it(
    "fullProve + verify spending a change leaf (left child at level 0), and a whole withdrawal that leaves a change of 0",
    async () => {
      const input = buildInput(4, 1_500_000n);
      expect(input.pathIndices.slice(0, 4)).toEqual(["0", "0", "1", "0"]);
      expect(input.isChange).toBe("1");
      expect(input.origin).toBe(depositLeaf(deposits[1]!).toString());
      // Nothing is left, yet a change leaf (of value 0) is still inserted: a whole withdrawal looks like a partial one.
      expect(input.changeCommitment).toBe(changeLeaf({ ...changeNoteOf(change4, 1_500_000n), value: 0n }).toString());
      const { proof, publicSignals } = await snarkjs.groth16.fullProve({ ...input }, WASM, ZKEY);
      expect(publicSignals).toEqual(publicOf(input));
      expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(true);
    },
    SLOW,
  );

  describe("no witness exists for", () => {
    const witness = (i: WithdrawInput) => snarkjs.wtns.calculate({ ...i }, WASM, { type: "mem" });
    /** The witness generator names the first failed constraint by template and line: this one of the main template. */
    const circuitLines = readFileSync(join(ROOT, "circuits/withdraw.circom"), "utf8").split("\n");
    const failsAt = (constraint: string): RegExp => {
      const line = circuitLines.findIndex((l) => l.trim() === constraint) + 1;
      expect(line, constraint).toBeGreaterThan(0);
      return new RegExp(`Error in template Withdraw_\\d+ line: ${line}\\b`);
    };
    let mute: { mockRestore(): void }[] = [];
    // The circom witness generator prints failed asserts; keep the test output clean.
    beforeAll(() => {
      mute = [vi.spyOn(console, "error").mockImplementation(() => {}), vi.spyOn(console, "log").mockImplementation(() => {})];
    });
    afterAll(() => mute.forEach((m) => m.mockRestore()));

    it("the honest inputs (the control: each case below changes one thing)", async () => {
      await expect(witness(buildInput(3, 1_000_000n))).resolves.toBeUndefined();
      await expect(witness(buildInput(4, 1n))).resolves.toBeUndefined();
      await expect(witness(buildInput(0, 1_000_000n))).resolves.toBeUndefined();
    });

    it("an amount above the note's value (the change would wrap around the field)", async () => {
      // changeCommitment and the change secrets are the honest ones for remaining = value - amount mod p.
      await expect(witness(buildInput(3, 4_000_001n))).rejects.toThrow(/Num2Bits/);
      await expect(witness(buildInput(4, 1_500_001n))).rejects.toThrow(/Num2Bits/);
    });

    it("an amount or a value not below 2^64", async () => {
      // A leaf of value 2^64 + 5 (no pool makes one; the range check must still refuse to spend it).
      const big: Note = { nullifier: 77n, secret: 88n, value: U64 + 5n, origin: null };
      const leaves = [...notes.map(leafOf), depositLeaf(big)];
      await expect(witness(buildInput(5, 5n, leaves, big))).rejects.toThrow(/Num2Bits/);
      // amount = 2^64 of it, remaining 5: the amount's own check refuses.
      await expect(witness(buildInput(5, U64, leaves, big))).rejects.toThrow(/Num2Bits/);
    });

    it("a change leaf for another remaining value, mint or origin", async () => {
      const honest = buildInput(3, 1_000_000n);
      const change = changeNoteOf(notes[3]!, 1_000_000n);
      const other = (n: Partial<Note>) => ({ ...honest, changeCommitment: changeLeaf({ ...change, ...n }).toString() });
      const changeCheck = failsAt("changeCommitment === changeHasher.out;");
      await expect(witness(other({ value: change.value + 1n }))).rejects.toThrow(changeCheck);
      await expect(witness(other({ mint: OTHER_MINT }))).rejects.toThrow(changeCheck);
      await expect(witness(other({ origin: depositLeaf(deposits[0]!) }))).rejects.toThrow(changeCheck);
      // The change of a change note keeps the chain's origin too.
      const fromChange = buildInput(4, 1n);
      const next = changeNoteOf(change4, 1n);
      await expect(witness({ ...fromChange, changeCommitment: changeLeaf({ ...next, origin: leafOf(change4) }).toString() })).rejects.toThrow(changeCheck);
    });

    it("a deposit note whose origin input is not its own leaf", async () => {
      const honest = buildInput(3, 1_000_000n);
      const foreignOrigin = depositLeaf(deposits[0]!);
      // Consistent everywhere else: the change leaf is computed with the claimed origin.
      const change = { ...changeNoteOf(notes[3]!, 1_000_000n), origin: foreignOrigin };
      await expect(witness({ ...honest, origin: foreignOrigin.toString(), changeCommitment: changeLeaf(change).toString() })).rejects.toThrow(
        failsAt("(1 - isChange) * (origin - depositLeaf.out) === 0;"),
      );
    });

    it("a deposit leaf posing as a change leaf, or the reverse", async () => {
      // isChange = 1 for deposit leaf 3 (origin = its own leaf, as a change note would carry it).
      await expect(witness({ ...buildInput(3, 1_000_000n), isChange: "1" })).rejects.toThrow(/MerkleTreeInclusion/);
      // isChange = 0 for change leaf 4: the deposit form of its hash is not in the tree.
      const honest = buildInput(4, 1n);
      const asDeposit: Note = { ...change4, origin: null };
      const change = changeNoteOf(asDeposit, 1n);
      await expect(
        witness({ ...honest, isChange: "0", origin: depositLeaf(asDeposit).toString(), changeCommitment: changeLeaf(change).toString() }),
      ).rejects.toThrow(/MerkleTreeInclusion/);
      // Nor is isChange anything but a bit.
      await expect(witness({ ...buildInput(3, 1_000_000n), isChange: "2" })).rejects.toThrow(failsAt("isChange * (1 - isChange) === 0;"));
    });

    it("a change nullifier equal to the spent nullifier", async () => {
      const honest = buildInput(3, 1_000_000n);
      const change = { ...changeNoteOf(notes[3]!, 1_000_000n), nullifier: notes[3]!.nullifier };
      await expect(witness({ ...honest, changeNullifier: change.nullifier.toString(), changeCommitment: changeLeaf(change).toString() })).rejects.toThrow(
        failsAt("nullifierDelta * nullifierDeltaInverse === 1;"),
      );
    });

    it("a non-bit path index, a wrong root, nullifierHash or value", async () => {
      const input = buildInput(3, 1_000_000n);
      // Forgery attempt: pathIndices[0] = 2 with a root that is consistent with the
      // selector arithmetic for s = 2. Only the bit constraint s * (1 - s) = 0 stops it.
      const forgedIndices = ["2", ...input.pathIndices.slice(1)];
      const forgedRoot = rootFromPath(leafOf(notes[3]!), input.pathElements.map(BigInt), forgedIndices.map(BigInt));
      await expect(witness({ ...input, pathIndices: forgedIndices, root: forgedRoot.toString() })).rejects.toThrow(/OrderPair/);
      await expect(witness({ ...input, root: (BigInt(input.root) + 1n).toString() })).rejects.toThrow(/MerkleTreeInclusion/);
      // Another value is another deposit leaf, which is then not this note's origin either.
      await expect(witness({ ...input, value: "1" })).rejects.toThrow(failsAt("(1 - isChange) * (origin - depositLeaf.out) === 0;"));
      const other = { ...notes[3]!, value: 1n };
      await expect(witness({ ...input, value: "1", origin: depositLeaf(other).toString() })).rejects.toThrow(/MerkleTreeInclusion/);
      await expect(witness({ ...input, nullifierHash: "1" })).rejects.toThrow(failsAt("nullifierHash === nullifierHasher.out;"));
    });
  });
});
