import type { ReactNode } from "react";
import { ApiError, UnreachableError } from "../api/client";

/** Loading, empty and error views shared by every dashboard feature. */

export function Loading({ label }: { label: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite" aria-busy="true">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children ? <div className="state-body">{children}</div> : null}
    </div>
  );
}

/** Words an operator can act on, for any error the API client raises. */
export function describeError(error: unknown): { title: string; detail: string } {
  if (error instanceof UnreachableError) {
    return { title: "The relay is not answering", detail: `${error.message}. Is the server running?` };
  }
  if (error instanceof ApiError) {
    const code = error.code && error.code !== error.message ? `${error.code}: ` : "";
    return { title: `The relay answered ${error.status}`, detail: `${code}${error.message}` };
  }
  return { title: "Something went wrong", detail: error instanceof Error ? error.message : String(error) };
}

export function ErrorState({ error, onRetry, retrying }: { error: unknown; onRetry?: () => void; retrying?: boolean }) {
  const { title, detail } = describeError(error);
  return (
    <div className="state state-error" role="alert">
      <p className="state-title">{title}</p>
      <p className="state-body">{detail}</p>
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry} disabled={retrying}>
          {retrying ? "Retrying…" : "Try again"}
        </button>
      ) : null}
    </div>
  );
}
