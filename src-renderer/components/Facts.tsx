import type { ReactNode } from "react";

/** A row of headline figures (`dl.facts`), each a {@link Fact}. */
export function Facts({ compact, children }: { compact?: boolean; children: ReactNode }) {
  return <dl className={compact ? "facts facts-compact" : "facts"}>{children}</dl>;
}

/** One headline figure: its name and value; `wide` for a long value such as an address. */
export function Fact({
  label,
  wide,
  children,
  small,
  title,
  testId,
}: {
  label: ReactNode;
  wide?: boolean;
  children: ReactNode;
  /** A smaller font for a value that is text rather than a figure. */
  small?: boolean;
  title?: string;
  testId?: string;
}) {
  return (
    <div className={wide ? "fact fact-wide" : "fact"}>
      <dt>{label}</dt>
      <dd className={small ? "fact-small" : undefined} title={title} data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}
