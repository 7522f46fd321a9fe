/**
 * The pool program's custom errors (Anchor: 6000 + n), docs/pool-program.md
 * "Program errors".
 */

export const POOL_ERRORS = {
  InvalidProof: 6000,
  UnknownRoot: 6001,
  NullifierSpent: 6002,
  FeeExceedsAmount: 6003,
  TreeFull: 6004,
  NotAuthority: 6005,
  NotRevertable: 6006,
  SwapOutputTooLow: 6007,
  InsufficientVault: 6008,
  // Protocol v2: the relay's terms and where the funds go.
  WrongTokenAccount: 6009,
  SwapAssertMissing: 6010,
  SwapAssertDuplicated: 6011,
  SwapAssertWrongAccount: 6012,
  RequiredBalanceTooLow: 6013,
  DuplicateWithdrawSwap: 6014,
  // Protocol v3: change leaves.
  InvalidInput: 6015,
  // Issue 25: a per-pool minimum deposit, so flushing the root ring costs money.
  DepositBelowMinimum: 6016,
} as const;

export type PoolErrorName = keyof typeof POOL_ERRORS;

/** The IDL's `msg` of each error. */
export const POOL_ERROR_MESSAGES: Record<PoolErrorName, string> = {
  InvalidProof: "The Groth16 proof does not verify",
  UnknownRoot: "The root is not in the tree's root history",
  NullifierSpent: "The nullifier account already exists",
  FeeExceedsAmount: "The fee exceeds the amount",
  TreeFull: "The Merkle tree is full",
  NotAuthority: "The signer is not the pool's authority",
  NotRevertable: "The deposit is not in the failed state",
  SwapOutputTooLow: "The swap escrow holds less than minOut",
  InsufficientVault: "The vault holds less than the amount",
  WrongTokenAccount: "A token account that receives funds has the wrong owner or mint",
  SwapAssertMissing: "withdraw_swap needs an assert_swap_out of this program after it in the same transaction",
  SwapAssertDuplicated: "The transaction holds more than one assert_swap_out of this program",
  SwapAssertWrongAccount: "assert_swap_out does not name this relayer, mint, escrow, nullifierHash and the recipient's output token account",
  RequiredBalanceTooLow: "assert_swap_out's minOut is below the proof's minOut",
  DuplicateWithdrawSwap: "The transaction holds more than one withdraw_swap of this program",
  InvalidInput: "amount is 0, changeCommitment is zero or not below the field modulus, minDeposit is 0, or the tree already has its full size",
  DepositBelowMinimum: "Deposit below the pool's minimum",
};

const NAME_BY_CODE = new Map<number, PoolErrorName>((Object.entries(POOL_ERRORS) as [PoolErrorName, number][]).map(([n, c]) => [c, n]));

export function poolErrorName(code: number): PoolErrorName | null {
  return NAME_BY_CODE.get(code) ?? null;
}

/** The log line the program writes when it fails: `Program log: Error: <Name>`. */
export function poolErrorLogLine(name: PoolErrorName): string {
  return `Program log: Error: ${name}`;
}

/**
 * Reads a transaction error `{ InstructionError: [i, { Custom: n }] }` (as
 * simulation and `meta.err` report it). Returns null for anything else, and
 * for custom codes that are not the pool's. A custom code belongs to the
 * program that failed; pass `isPoolInstruction` to accept only failures of
 * instructions addressed to the pool program (another program may use 6000+).
 */
export function poolErrorFromTransactionError(
  err: unknown,
  isPoolInstruction?: (instructionIndex: number) => boolean,
): { name: PoolErrorName; instructionIndex: number } | null {
  if (typeof err !== "object" || err === null || !("InstructionError" in err)) return null;
  const ie: unknown = err.InstructionError;
  if (!Array.isArray(ie) || ie.length !== 2) return null;
  const [index, detail]: unknown[] = ie;
  if (typeof index !== "number" || !Number.isInteger(index) || index < 0) return null;
  if (typeof detail !== "object" || detail === null || !("Custom" in detail)) return null;
  const code: unknown = detail.Custom;
  if (typeof code !== "number") return null;
  const name = poolErrorName(code);
  if (!name) return null;
  if (isPoolInstruction && !isPoolInstruction(index)) return null;
  return { name, instructionIndex: index };
}

/** The first `Program log: Error: <Name>` naming a pool error, or null. */
export function poolErrorFromLogs(logMessages: readonly string[] | null | undefined): PoolErrorName | null {
  if (!Array.isArray(logMessages)) return null;
  for (const line of logMessages as readonly unknown[]) {
    if (typeof line !== "string" || !line.startsWith("Program log: Error: ")) continue;
    const name = line.slice("Program log: Error: ".length).trim();
    if (Object.hasOwn(POOL_ERRORS, name)) return name as PoolErrorName;
  }
  return null;
}
