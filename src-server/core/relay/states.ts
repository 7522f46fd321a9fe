import type { RelaySuccess } from "../../../src-shared/api/public";
import type { ErrorNameValue } from "../../../src-shared/errors";
import type { Refusal } from "../fault";

/**
 * A relay's life as a tagged union: each state carries only what is known by
 * then. Received → Verified → Submitted → Confirmed | Failed.
 */
export type RelayState =
  | { kind: "received"; at: number }
  | { kind: "verified"; at: number; verifyMs: number }
  | { kind: "submitted"; at: number }
  /** changeLeafIndex (protocol v3): where the withdrawal's change leaf went, when the chain said. */
  | { kind: "confirmed"; at: number; signature: string; changeLeafIndex?: number }
  | { kind: "failed"; at: number; error: ErrorNameValue; detail: string };

export const RelayState = {
  received: (at: number): RelayState => ({ kind: "received", at }),
  verified: (at: number, verifyMs: number): RelayState => ({ kind: "verified", at, verifyMs }),
  submitted: (at: number): RelayState => ({ kind: "submitted", at }),
  confirmed: (at: number, signature: string, changeLeafIndex: number | null = null): RelayState =>
    changeLeafIndex === null ? { kind: "confirmed", at, signature } : { kind: "confirmed", at, signature, changeLeafIndex },
  failed: (at: number, error: ErrorNameValue, detail: string): RelayState => ({ kind: "failed", at, error, detail }),
};

/** The relay result: the spec's success answer, or a refusal the HTTP layer answers with its status (`{ status, error, message }`). */
export type RelayOutcome = RelaySuccess | Refusal;
