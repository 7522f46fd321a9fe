import { describe, expect, it } from "vitest";
import { POOL_ERRORS, poolErrorFromLogs, poolErrorFromTransactionError, poolErrorLogLine } from "./errors";

describe("pool errors", () => {
  it("codes are 6000..6016 in the doc's order (v2's and v3's checks after the older codes, which keep their numbers)", () => {
    expect(Object.entries(POOL_ERRORS)).toEqual([
      ["InvalidProof", 6000],
      ["UnknownRoot", 6001],
      ["NullifierSpent", 6002],
      ["FeeExceedsAmount", 6003],
      ["TreeFull", 6004],
      ["NotAuthority", 6005],
      ["NotRevertable", 6006],
      ["SwapOutputTooLow", 6007],
      ["InsufficientVault", 6008],
      ["WrongTokenAccount", 6009],
      ["SwapAssertMissing", 6010],
      ["SwapAssertDuplicated", 6011],
      ["SwapAssertWrongAccount", 6012],
      ["RequiredBalanceTooLow", 6013],
      ["DuplicateWithdrawSwap", 6014],
      ["InvalidInput", 6015],
      ["DepositBelowMinimum", 6016],
    ]);
  });

  it("reads { InstructionError: [i, { Custom: n }] } into the error's name and the instruction index", () => {
    expect(poolErrorFromTransactionError({ InstructionError: [2, { Custom: 6002 }] })).toEqual({ name: "NullifierSpent", instructionIndex: 2 });
    expect(poolErrorFromTransactionError({ InstructionError: [0, { Custom: 6007 }] })).toEqual({ name: "SwapOutputTooLow", instructionIndex: 0 });
    expect(poolErrorFromTransactionError({ InstructionError: [3, { Custom: 6010 }] })).toEqual({ name: "SwapAssertMissing", instructionIndex: 3 });
    expect(poolErrorFromTransactionError({ InstructionError: [1, { Custom: 6015 }] })).toEqual({ name: "InvalidInput", instructionIndex: 1 });
  });

  it("returns null for other errors, other programs' codes and malformed values", () => {
    for (const e of [
      null,
      undefined,
      "BlockhashNotFound",
      { InstructionError: [0, "InvalidArgument"] },
      { InstructionError: [0, { Custom: 1 }] },
      { InstructionError: [0, { Custom: 6017 }] },
      { InstructionError: [0, { Custom: "6000" }] },
      { InstructionError: ["0", { Custom: 6000 }] },
      { InstructionError: [0] },
      { InsufficientFundsForRent: { account_index: 0 } },
    ]) {
      expect(poolErrorFromTransactionError(e)).toBeNull();
    }
  });

  it("with isPoolInstruction, a custom code of another program's instruction is not ours", () => {
    const err = { InstructionError: [1, { Custom: 6000 }] };
    expect(poolErrorFromTransactionError(err, (i) => i === 2)).toBeNull();
    expect(poolErrorFromTransactionError(err, (i) => i === 1)).toEqual({ name: "InvalidProof", instructionIndex: 1 });
  });

  it("reads the 'Program log: Error: <Name>' line", () => {
    expect(poolErrorLogLine("UnknownRoot")).toBe("Program log: Error: UnknownRoot");
    expect(poolErrorFromLogs(["Program x invoke [1]", "Program log: Error: Whatever", "Program log: Error: UnknownRoot"])).toBe("UnknownRoot");
    expect(poolErrorFromLogs(["Program log: Error: toString"])).toBeNull();
    expect(poolErrorFromLogs(null)).toBeNull();
  });
});
