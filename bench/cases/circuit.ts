/**
 * The withdraw circuit, protocol v3 against v2 (issue 24): constraint counts
 * from the committed r1cs description, and proving time of one withdrawal
 * with single-threaded snarkjs (what the SDK runs), v3 and v2 interleaved in
 * the same run. v2's wasm and zkey are read from the last commit that had them
 * (git history), so the peer is the circuit v3 replaced, not a guess.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bigIntToBytes32, bytesToBigInt } from "../../src-shared/encoding/field";
import { snarkjsProver } from "../../src-client/sdk/prove";
import type { Metric } from "../lib/metric";
import { median } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";
import { leafZeroWithdrawal } from "../lib/withdrawal-input";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The last commit whose resources/zk held protocol v2's artifacts (nPublic 6). */
const V2_COMMIT = "f6032d3";

interface ArtifactsJson {
  constraints: number;
  wires: number;
  protocol: number;
}

function gitShow(file: string, to: string): boolean {
  try {
    writeFileSync(to, execFileSync("git", ["show", `${V2_COMMIT}:${file}`], { cwd: ROOT, maxBuffer: 64 << 20 }));
    return true;
  } catch {
    return false;
  }
}

const circuitCase: BenchCase = {
  name: "circuit",
  title: "withdraw circuit v3 vs v2",
  async run({ quick, log }) {
    const reps = quick ? 1 : 5;
    const v3 = JSON.parse(readFileSync(path.join(ROOT, "resources/zk/artifacts.json"), "utf8")) as ArtifactsJson;
    const dir = mkdtempSync(path.join(tmpdir(), "bench-circuit-"));
    try {
      const v2Files = { wasm: path.join(dir, "v2.wasm"), zkey: path.join(dir, "v2.zkey"), artifacts: path.join(dir, "v2.json") };
      const haveV2 =
        gitShow("resources/zk/withdraw.wasm", v2Files.wasm) &&
        gitShow("resources/zk/withdraw.zkey", v2Files.zkey) &&
        gitShow("resources/zk/artifacts.json", v2Files.artifacts);
      const v2 = haveV2 ? (JSON.parse(readFileSync(v2Files.artifacts, "utf8")) as ArtifactsJson) : null;

      // One note, leaf 0 of an otherwise empty tree: the same Merkle path for both circuits.
      const { note, input: v3Input } = await leafZeroWithdrawal();
      // v2's inputs: the whole note, its six public signals (no change commitment).
      const v2Input = {
        root: v3Input.root,
        nullifierHash: v3Input.nullifierHash,
        recipient: v3Input.recipient,
        amount: note.amount.toString(),
        mint: v3Input.mint,
        extDataHash: v3Input.extDataHash,
        nullifier: v3Input.nullifier,
        secret: v3Input.secret,
        pathElements: v3Input.pathElements,
        pathIndices: v3Input.pathIndices,
      };
      // Both leaves are the same deposit leaf: v2's commitment rule is v3's deposit leaf.
      if (bytesToBigInt(note.commitment) !== bytesToBigInt(bigIntToBytes32(BigInt(v3Input.origin)))) throw new Error("origin is not the leaf");

      const wasm3 = path.join(ROOT, "resources/zk/withdraw.wasm");
      const zkey3 = path.join(ROOT, "resources/zk/withdraw.zkey");
      const prove3 = async (): Promise<number> => {
        const t0 = performance.now();
        await snarkjsProver(v3Input, wasm3, zkey3);
        return performance.now() - t0;
      };
      const prove2 = async (): Promise<number> => {
        const t0 = performance.now();
        await snarkjsProver(v2Input as unknown as typeof v3Input, v2Files.wasm, v2Files.zkey);
        return performance.now() - t0;
      };
      log("warming up both provers");
      await prove3();
      if (haveV2) await prove2();
      const t3: number[] = [];
      const t2: number[] = [];
      for (let r = 0; r < reps; r++) {
        t3.push(await prove3());
        if (haveV2) t2.push(await prove2());
      }
      const metrics: Metric[] = [
        {
          name: "withdraw circuit constraints (v3)",
          ours: v3.constraints,
          unit: "constraints",
          peerLabel: "v2",
          peer: v2?.constraints ?? null,
          better: "lower",
          // DESIGN §10: the circuit fits the 2^14 powers of tau (domain: constraints + public + 1).
          target: { kind: "<", value: 2 ** 14 - 8 },
          detail: `${v3.wires} wires`,
        },
        {
          name: "proving one withdrawal (v3, single-threaded snarkjs)",
          ours: median(t3),
          unit: "ms",
          peerLabel: "v2 circuit",
          peer: haveV2 ? median(t2) : null,
          better: "lower",
          target: null,
          detail: `median of ${reps}, interleaved`,
        },
      ];
      return {
        metrics,
        notes: haveV2 ? [`v2 artifacts from git ${V2_COMMIT}`] : [`v2 artifacts not in this clone's history (git ${V2_COMMIT}): no peer this run`],
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default circuitCase;
