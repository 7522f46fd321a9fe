import type { ReactNode } from "react";
import { useAdminHealth } from "../api/admin-hooks";
import { useSession } from "../auth/context";
import { AlertsBadge, DesktopAlertNotifier } from "../features/alerts/AlertsBadge";
import { hrefFor, ROUTES, type RouteId } from "./routes";

/** Header (product, sandbox badge, nav, sign-out) around the current page. */
export function Shell({ route, children }: { route: RouteId; children: ReactNode }) {
  const { session, state } = useSession();
  return (
    <div className="shell">
      <header className="shell-header">
        <div className="shell-brand">
          <span className="shell-logo" aria-hidden="true" />
          <span className="shell-title">Withdrawal Relay</span>
          <span className="shell-subtitle">Operator console</span>
          <SandboxBadge />
        </div>
        <div className="shell-account">
          {state.status === "signed-in" && state.via === "desktop" ? (
            <span className="muted" title="The desktop app holds the operator token">
              Signed in by the desktop app
            </span>
          ) : (
            <button type="button" className="button button-small" onClick={() => session.signOut()}>
              Sign out
            </button>
          )}
        </div>
        <nav className="shell-nav" aria-label="Sections">
          {ROUTES.map((r) => (
            <a key={r.id} href={hrefFor(r.id)} className="shell-nav-link" aria-current={r.id === route ? "page" : undefined}>
              {r.label}
              {r.id === "alerts" ? <AlertsBadge /> : null}
            </a>
          ))}
        </nav>
      </header>
      <DesktopAlertNotifier />
      <main className="shell-main">
        <DevelopmentKeyBanner />
        {children}
      </main>
    </div>
  );
}

/** Shown whenever any network runs on the sandbox ledger: nothing here moves real funds. */
function SandboxBadge() {
  const { data } = useAdminHealth();
  const sandboxed = data?.networks.filter((n) => n.sandbox) ?? [];
  if (sandboxed.length === 0) return null;
  const which = sandboxed.map((n) => n.name).join(" and ");
  return (
    <span className="sandbox-badge" role="status" title={`${which} run on the local sandbox ledger: no real funds move`}>
      Sandbox
    </span>
  );
}

/**
 * Red on every page while a solana network runs on the development verifying key (published
 * seed: anyone can forge proofs), which the operator allowed with allowDevelopmentVerifyingKey.
 */
function DevelopmentKeyBanner() {
  const { data } = useAdminHealth();
  const networks = data?.networks.filter((n) => n.developmentVerifyingKey) ?? [];
  if (networks.length === 0) return null;
  const which = networks.map((n) => n.name).join(" and ");
  return (
    <div className="banner banner-bad devkey-banner" role="alert" data-testid="devkey-banner">
      <span className="banner-icon" aria-hidden="true">
        !
      </span>
      <div>
        <p className="banner-title">Development verifying key on {which}</p>
        <p className="banner-body">
          Withdrawals on {which} are verified with the development key made from a published seed: anyone can forge proofs and withdraw every deposit. Never use
          it with real funds; replace it after a multi-party ceremony (docs/zk.md) and remove <code>allowDevelopmentVerifyingKey</code> from{" "}
          {networks.length > 1 ? "those networks" : "that network"}.
        </p>
      </div>
    </div>
  );
}
