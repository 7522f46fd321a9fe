import type { ReactNode } from "react";

/** A titled section of a page; `id` names its heading, which labels the section. */
export function Panel({ id, title, testId, children }: { id: string; title: ReactNode; testId?: string; children: ReactNode }) {
  return (
    <section className="panel" aria-labelledby={id} data-testid={testId}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
