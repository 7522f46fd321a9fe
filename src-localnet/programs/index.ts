/**
 * The programs the local validator runs besides LiteSVM's own (System,
 * Compute Budget, SPL Token, Token-2022, Associated Token, Memo, Address
 * Lookup Table): the SBF builds of this repo's pool program and cp-swap
 * venue, and the cp-swap venue's client side (pools, instruction).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_POOL_PROGRAM_ID } from "../../src-shared/pool-program";
import type { SbfProgram } from "../ledger/svm";
import { CP_SWAP_PROGRAM_ID } from "./cp-swap-client";

/** Kept for existing callers: the address functions are the codec's (src-shared/pool-program). */
export { commitmentMarkerAddress, findCommitmentMarkerAddress } from "../../src-shared/pool-program";
export {
  CP_SWAP_PROGRAM_ID,
  CP_SWAP_LABEL,
  CP_SWAP_ERRORS,
  cpSwapInstruction,
  createCpPool,
  readCpPool,
  findCpPoolAddress,
  cpVaultAddress,
  type CpPoolInfo,
} from "./cp-swap-client";

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
