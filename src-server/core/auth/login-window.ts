export interface LoginWindow {
  maxAgeSec: number;
  maxFutureSec: number;
}

export type TimestampVerdict = "fresh" | "too old" | "in the future";

/** A login timestamp is accepted from maxAge seconds ago to maxFuture seconds ahead (300 s and 60 s by default). */
export function judgeLoginTimestamp(message: number, nowSec: number, window: LoginWindow): TimestampVerdict {
  if (message < nowSec - window.maxAgeSec) return "too old";
  if (message > nowSec + window.maxFutureSec) return "in the future";
  return "fresh";
}
