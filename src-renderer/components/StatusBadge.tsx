import { Badge, type Tone } from "./Badge";

const TONES: Record<string, Tone> = {
  confirmed: "ok",
  processed: "ok",
  issued: "ok",
  clear: "ok",
  failed: "bad",
  refused: "bad",
  listed: "bad",
  error: "bad",
  received: "warn",
  verified: "warn",
  submitted: "warn",
  requested: "warn",
};

/** A relay, revert or compliance status with its colour; in-flight states are amber. */
export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={TONES[status] ?? "neutral"}>{status}</Badge>;
}
