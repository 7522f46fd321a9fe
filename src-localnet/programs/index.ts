/**
 * The programs the local validator executes (src-localnet/runtime/types.ts's
 * Program seam): system, compute budget, an SPL Token subset, the associated
 * token account program and the pool program (docs/pool-program.md).
 */
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import type { ProofVerifier } from "../../src-server/ports/proof-verifier";
import type { Program } from "../runtime/types";
import { AssociatedTokenProgram } from "./associated-token";
import { ComputeBudgetProgram } from "./compute-budget";
import { CpSwapProgram } from "./cp-swap";
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
