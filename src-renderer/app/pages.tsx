import { AlertsPage } from "../features/alerts/AlertsPage";
import { CompliancePage } from "../features/compliance/CompliancePage";
import { HealthPage } from "../features/health/HealthPage";
import { MoneyPage } from "../features/money/MoneyPage";
import { NullifiersPage } from "../features/nullifiers/NullifiersPage";
import { PoolsPage } from "../features/pools/PoolsPage";
import { RelayDetailPage } from "../features/relays/RelayDetailPage";
import { RejectedRelaysPage } from "../features/relays/RejectedRelaysPage";
import { RelaysPage } from "../features/relays/RelaysPage";
import { RevertsPage } from "../features/reverts/RevertsPage";
import { SettingsPage } from "../features/settings/SettingsPage";
import { isNetwork } from "../../src-shared/networks";
import type { Network } from "../../src-shared/networks";
import type { Route } from "./routes";

/** `#/pools/<network>/<mint>[/<leaf index>]`: the pool whose tree explorer is open, at that leaf when given. */
const poolOf = ([network, mint, leaf]: string[]): { network: Network; mint: string; leaf: number | null } | null =>
  isNetwork(network) && mint ? { network, mint, leaf: leaf && /^[0-9]{1,10}$/.test(leaf) && Number(leaf) < 2 ** 32 ? Number(leaf) : null } : null;

/** The dashboard for a route. */
export function Page({ route }: { route: Route }) {
  switch (route.id) {
    case "pools":
      return <PoolsPage selected={poolOf(route.rest)} />;
    case "relays":
      if (route.rest[0] === "rejected") return <RejectedRelaysPage />;
      return route.rest[0] ? <RelayDetailPage id={route.rest[0]} /> : <RelaysPage />;
    case "nullifiers":
      return <NullifiersPage />;
    case "money":
      return <MoneyPage />;
    case "reverts":
      return <RevertsPage />;
    case "compliance":
      return <CompliancePage />;
    case "alerts":
      return <AlertsPage />;
    case "settings":
      return <SettingsPage />;
    case "health":
    case "wallet": // rendered outside the sign-in (App.tsx), never here
      return <HealthPage />;
  }
}
