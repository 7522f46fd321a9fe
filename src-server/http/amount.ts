import { err, ok, type Result } from "../../src-shared/result";

/**
 * Amounts arrive as JSON numbers (the spec's fields): positive integers no
 * larger than 2^53 - 1, since a bigger number already lost precision in JSON.
 */
export function parseAmount(value: unknown): Result<bigint, string> {
  if (typeof value !== "number" || !Number.isInteger(value)) return err("must be an integer number of base units");
  if (value <= 0) return err("must be positive");
  if (!Number.isSafeInteger(value)) return err("must be at most 2^53 - 1 (larger values lose precision in JSON)");
  return ok(BigInt(value));
}
