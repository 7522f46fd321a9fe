/**
 * Runs the groth16-harness program (programs/groth16-harness/groth16-harness.so, made
 * by `npm run build:programs`) in LiteSVM (tests/support/svm.ts): one transaction per
 * call, with the units the verifier itself used read from its two
 * sol_log_compute_units lines.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ComputeBudgetProgram, TransactionInstruction } from "@solana/web3.js";
import { Svm, type TxResult } from "../../tests/support/svm";

export const HARNESS_SO = fileURLToPath(new URL("./groth16-harness.so", import.meta.url));

/** What sol_log_compute_units itself costs (agave's syscall_base_cost), charged before it reads. */
const LOG_UNITS_COST = 100;

export interface HarnessRun extends TxResult {
  /** Units between the two readings around groth16_verify, less the second reading's own cost. */
  verifierUnits?: number;
}

export interface Harness {
  /** 256-byte proof || 7 x 32-byte inputs. */
  verify(data: Uint8Array): HarnessRun;
  /** 7 x 32-byte inputs: vk_x as return data. */
  vkX(inputs: Uint8Array[]): HarnessRun;
}

export function startHarness(): Harness {
  if (!existsSync(HARNESS_SO)) throw new Error(`${HARNESS_SO} is missing: npm run build:programs`);
  const svm = new Svm();
  const programId = svm.addProgram(HARNESS_SO);
  const payer = svm.fundedKeypair();

  const send = (data: Uint8Array): HarnessRun => {
    // A repeated proof would otherwise be a duplicate transaction.
    svm.expireBlockhash();
    const r: HarnessRun = svm.send(
      [ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 }), new TransactionInstruction({ programId, keys: [], data: Buffer.from(data) })],
      [payer],
    );
    const remaining = r.logs
      .map((l) => /Program consumption: (\d+) units remaining/.exec(l)?.[1])
      .filter((v): v is string => v !== undefined)
      .map(Number);
    if (remaining.length === 2) r.verifierUnits = remaining[0]! - remaining[1]! - LOG_UNITS_COST;
    return r;
  };

  return {
    verify: (data) => send(data),
    vkX: (inputs) => {
      const data = new Uint8Array(32 * inputs.length);
      inputs.forEach((s, i) => data.set(s, 32 * i));
      return send(data);
    },
  };
}
