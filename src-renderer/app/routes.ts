import { useEffect, useState } from "react";

/**
 * Hash routes (`#/health`, `#/relays/<id>`): they work unchanged under /console/ in a
 * browser and in the desktop window, need no server fallback, and never trigger a
 * navigation (the desktop shell refuses navigations).
 */
export const ROUTES = [
  { id: "health", label: "Health" },
  { id: "pools", label: "Pools" },
  { id: "relays", label: "Relays" },
  { id: "nullifiers", label: "Nullifiers" },
  { id: "money", label: "Money" },
  { id: "reverts", label: "Reverts" },
  { id: "compliance", label: "Compliance" },
  { id: "alerts", label: "Alerts" },
  { id: "settings", label: "Settings" },
] as const;
/** Pages outside the operator's sign-in: the depositor's wallet page. */
export const PUBLIC_ROUTES = ["wallet"] as const;
export type RouteId = (typeof ROUTES)[number]["id"] | (typeof PUBLIC_ROUTES)[number];

export const DEFAULT_ROUTE: RouteId = "health";

export interface Route {
  id: RouteId;
  /** Path segments after the route id, decoded: `#/relays/<id>` → [id]. */
  rest: string[];
}

export function routeFromHash(hash: string): Route {
  const [head = "", ...rest] = hash.replace(/^#\/?/, "").split("?")[0]!.split("/");
  const id: RouteId | undefined = ROUTES.find((r) => r.id === head)?.id ?? PUBLIC_ROUTES.find((r) => r === head);
  if (!id) return { id: DEFAULT_ROUTE, rest: [] };
  return { id, rest: rest.filter(Boolean).map((s) => safeDecode(s)) };
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export const hrefFor = (id: RouteId, ...rest: string[]) => `#/${[id, ...rest.map(encodeURIComponent)].join("/")}`;

export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => routeFromHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(routeFromHash(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
