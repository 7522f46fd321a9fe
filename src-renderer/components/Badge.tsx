import type { ReactNode } from "react";

export type Tone = "ok" | "bad" | "warn" | "neutral";

export function Badge({ tone, children, title }: { tone: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}
