/**
 * One signed transaction of a submission, as the landing engine saw it. Reported
 * twice: `pending` once signed and before it is sent (so a crash leaves the
 * signature on record), then with its verdict.
 */
export interface SubmissionAttempt {
  /** 1-based attempt number; a new attempt is a fresh blockhash. */
  n: number;
  signature: string;
  blockhash: string;
  lastValidBlockHeight: number;
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: number;
  /** Base fee + priority fee this attempt pays if it lands. */
  networkFeeLamports: number;
  /** Unix ms. */
  sentAt: number;
  /** Times the signed transaction was sent (first send + rebroadcasts). */
  broadcasts: number;
  verdict: "pending" | "landed" | "failed" | "expired" | "unknown";
  /** Unix ms of the verdict; null while pending. */
  verdictAt: number | null;
  slot: number | null;
  detail: string | null;
}
