import { literal, nullable, number, object, string, type Infer } from "./api/decode";

/**
 * One signed transaction of a submission, as the landing engine saw it. Reported
 * twice: `pending` once signed and before it is sent (so a crash leaves the
 * signature on record), then with its verdict.
 */
export const submissionAttempt = object({
  /** 1-based attempt number; a new attempt is a fresh blockhash. */
  n: number,
  signature: string,
  blockhash: string,
  lastValidBlockHeight: number,
  computeUnitLimit: number,
  computeUnitPriceMicroLamports: number,
  /** Base fee + priority fee this attempt pays if it lands. */
  networkFeeLamports: number,
  /** Unix ms. */
  sentAt: number,
  /** Times the signed transaction was sent (first send + rebroadcasts). */
  broadcasts: number,
  verdict: literal("pending", "landed", "failed", "expired", "unknown"),
  /** Unix ms of the verdict; null while pending. */
  verdictAt: nullable(number),
  slot: nullable(number),
  detail: nullable(string),
});
export type SubmissionAttempt = Infer<typeof submissionAttempt>;
