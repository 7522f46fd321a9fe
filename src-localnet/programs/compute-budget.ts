/**
 * The compute budget program (ComputeBudget111111111111111111111111111111).
 * The ledger reads SetComputeUnitLimit / SetComputeUnitPrice from the message
 * for limits and fees; executing them does nothing but cost 150 units. The
 * data is still checked, as the runtime does: tag u8 then RequestHeapFrame (1,
 * u32), SetComputeUnitLimit (2, u32), SetComputeUnitPrice (3, u64),
 * SetLoadedAccountsDataSizeLimit (4, u32).
 */
import { COMPUTE_BUDGET_PROGRAM_ID } from "../../src-shared/pool-program";
import type { CompiledInstruction, ExecContext, Program } from "../runtime/types";
import { builtinError } from "./runtime-helpers";

export const COMPUTE_BUDGET_UNITS = 150;

const DATA_SIZES: Record<number, number> = { 1: 5, 2: 5, 3: 9, 4: 5 };

export class ComputeBudgetProgram implements Program {
  readonly id = COMPUTE_BUDGET_PROGRAM_ID;
  readonly baseUnits = COMPUTE_BUDGET_UNITS;

  execute(ix: CompiledInstruction, _ctx: ExecContext): void {
    const tag = ix.data[0];
    const size = tag === undefined ? undefined : DATA_SIZES[tag];
    if (size === undefined || ix.data.length !== size) throw builtinError("InvalidInstructionData", "compute budget instruction: unknown or malformed");
  }
}
