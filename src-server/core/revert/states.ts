import type { ErrorNameValue } from "../../../src-shared/errors";

/**
 * A revert's life for the console's support queue, as a tagged union:
 * Requested → Submitted → Processed | Failed; a refusal fails it from Requested.
 */
export type RevertState =
  | { kind: "requested"; at: number }
  | { kind: "submitted"; at: number }
  | { kind: "processed"; at: number; signature: string }
  | { kind: "failed"; at: number; error: ErrorNameValue; detail: string };

export const RevertState = {
  requested: (at: number): RevertState => ({ kind: "requested", at }),
  submitted: (at: number): RevertState => ({ kind: "submitted", at }),
  processed: (at: number, signature: string): RevertState => ({ kind: "processed", at, signature }),
  failed: (at: number, error: ErrorNameValue, detail: string): RevertState => ({ kind: "failed", at, error, detail }),
};
