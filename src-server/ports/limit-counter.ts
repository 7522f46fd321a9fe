import type { LimitDecision } from "../core/limits/sliding-window";

export interface LimitTake {
  key: string;
  limit: number;
  windowMs: number;
  mode: "take" | "peek" | "take-if-first-allowed";
}
export interface LimitCounter {
  /** All keys of one request in ONE round trip; answers in the same order (LimitDecision of core/limits/sliding-window). */
  take(keys: LimitTake[], now: number): Promise<LimitDecision[]>;
}
