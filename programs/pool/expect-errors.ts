/**
 * The pool program's refusals as vitest expectations: the custom code at the
 * instruction's index and the log line the program (or Anchor's framework
 * error) writes. Kept apart from test-support.ts so the bench can use that
 * without vitest.
 */
import { expect } from "vitest";
import { POOL_ERRORS, type PoolErrorName } from "../../src-shared/pool-program";
import type { Landed } from "./test-support";

/** The pool's error at our index-th instruction (the compute-budget instruction is 0), with its log line. */
export function expectPoolError(r: Landed, index: number, name: PoolErrorName): void {
  expect(r.err, r.logs.join("\n")).toEqual({ InstructionError: [index + 1, { Custom: POOL_ERRORS[name] }] });
  expect(r.logs).toContain(`Program log: Error: ${name}`);
}

/** An Anchor framework error (ConstraintSeeds 2006, …) at our index-th instruction, with Anchor's log line. */
export function expectAnchorError(r: Landed, index: number, code: number, name: string, account?: string): void {
  expect(r.err, r.logs.join("\n")).toEqual({ InstructionError: [index + 1, { Custom: code }] });
  const cause = account === undefined ? "AnchorError occurred." : `AnchorError caused by account: ${account}.`;
  expect(
    r.logs.some((l) => l.startsWith(`Program log: ${cause} Error Code: ${name}. Error Number: ${code}. Error Message: `)),
    r.logs.join("\n"),
  ).toBe(true);
}
