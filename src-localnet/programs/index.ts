/**
 * The programs the local validator executes (src-localnet/runtime/types.ts's
 * Program seam): system, compute budget, an SPL Token subset, the associated
 * token account program and the pool program (docs/pool-program.md).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { DEFAULT_POOL_PROGRAM_ID } from "../../src-shared/pool-program";
import type { SbfProgram } from "../ledger/svm";
import type { ProofVerifier } from "../../src-server/ports/proof-verifier";
import type { Program } from "../runtime/types";
import { AssociatedTokenProgram } from "./associated-token";
import { ComputeBudgetProgram } from "./compute-budget";
import { CP_SWAP_PROGRAM_ID, CpSwapProgram } from "./cp-swap";
import { PoolProgram } from "./pool";
import { TokenProgram } from "./spl-token";
import { SystemProgram } from "./system";

export { SystemProgram, SYSTEM_UNITS, MAX_ACCOUNT_DATA } from "./system";
export { ComputeBudgetProgram, COMPUTE_BUDGET_UNITS } from "./compute-budget";
export { TokenProgram, TOKEN_UNITS, TOKEN_ERRORS, transferTokens, loadTokenAccount } from "./spl-token";
export { AssociatedTokenProgram, ATA_UNITS, createAssociatedTokenAccount } from "./associated-token";
export { PoolProgram, POOL_UNITS, type PoolProgramOptions } from "./pool";
/** Kept for existing callers: the address functions are the codec's (src-shared/pool-program). */
export { commitmentMarkerAddress, findCommitmentMarkerAddress } from "../../src-shared/pool-program";
export { ANCHOR_ERRORS } from "./runtime-helpers";
export {
  CpSwapProgram,
  CP_SWAP_PROGRAM_ID,
  CP_SWAP_LABEL,
  CP_SWAP_ERRORS,
  cpSwapInstruction,
  createCpPool,
  readCpPool,
  findCpPoolAddress,
  cpVaultAddress,
  type CpPoolInfo,
} from "./cp-swap";

export interface DefaultProgramsOptions {
  poolProgramId: string;
  hasher: FieldHasher;
  /** The pool program's Groth16 check; the caller owns it (close it after the validator). */
  verifier: ProofVerifier;
}

/** System, compute budget, token, associated token, the pool program at `poolProgramId` and the constant-product swap venue (cp-swap.ts). */
export function createDefaultPrograms(opts: DefaultProgramsOptions): Program[] {
  return [
    new SystemProgram(),
    new ComputeBudgetProgram(),
    new TokenProgram(),
    new AssociatedTokenProgram(),
    new PoolProgram({ programId: opts.poolProgramId, hasher: opts.hasher, verifier: opts.verifier }),
    new CpSwapProgram(),
  ];
}

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The pool program built from programs/pool/src (`npm run build:programs`). */
export const POOL_SO = path.join(repo, "programs/pool/pool.so");
/** The constant-product venue built from programs/cp-swap/src. */
export const CP_SWAP_SO = path.join(repo, "programs/cp-swap/cp-swap.so");

/** The SBF programs the validator loads into LiteSVM: the pool program at `poolProgramId` and the cp-swap venue at CP_SWAP_PROGRAM_ID. */
export function defaultSbfPrograms(opts: { poolProgramId?: string } = {}): SbfProgram[] {
  return [
    { id: opts.poolProgramId ?? DEFAULT_POOL_PROGRAM_ID, so: POOL_SO },
    { id: CP_SWAP_PROGRAM_ID, so: CP_SWAP_SO },
  ];
}
