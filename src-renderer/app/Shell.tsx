import type { ReactNode } from "react";
import { useHealthDetail } from "../api/hooks";
import { hrefFor, ROUTES, type RouteId } from "./routes";

/** Header (product, sandbox badge, nav) around the current page. */
export function Shell({ route, children }: { route: RouteId; children: ReactNode }) {
  return (
    <div className="shell">
      <header className="shell-header">
        <div className="shell-brand">
          <span className="shell-logo" aria-hidden="true" />
          <span className="shell-title">Withdrawal Relay</span>
          <span className="shell-subtitle">Operator console</span>
          <SandboxBadge />
        </div>
        <nav className="shell-nav" aria-label="Sections">
          {ROUTES.map((r) => (
            <a key={r.id} href={hrefFor(r.id)} className="shell-nav-link" aria-current={r.id === route ? "page" : undefined}>
              {r.label}
            </a>
          ))}
        </nav>
      </header>
      <main className="shell-main">{children}</main>
    </div>
  );
}

/** Shown whenever any network runs on the sandbox ledger: nothing here moves real funds. */
function SandboxBadge() {
  const { data } = useHealthDetail();
  const sandboxed = data?.networks.filter((n) => n.sandbox) ?? [];
  if (sandboxed.length === 0) return null;
  const which = sandboxed.map((n) => n.name).join(" and ");
  return (
    <span className="sandbox-badge" role="status" title={`${which} run on the local sandbox ledger: no real funds move`}>
      Sandbox
    </span>
  );
}
