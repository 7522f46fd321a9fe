import { useEffect, useState } from "react";

/**
 * Hash routes (`#/health`, `#/pools`): they work unchanged under /console/ in a browser
 * and in the desktop window, need no server fallback, and never trigger a navigation
 * (the desktop shell refuses navigations).
 */
export const ROUTES = [
  { id: "health", label: "Health" },
  { id: "pools", label: "Pools" },
] as const;
export type RouteId = (typeof ROUTES)[number]["id"];

export const DEFAULT_ROUTE: RouteId = "health";

export function routeFromHash(hash: string): RouteId {
  const id = hash.replace(/^#\/?/, "").split(/[/?]/)[0];
  return ROUTES.find((r) => r.id === id)?.id ?? DEFAULT_ROUTE;
}

export const hrefFor = (id: RouteId) => `#/${id}`;

export function useRoute(): RouteId {
  const [route, setRoute] = useState<RouteId>(() => routeFromHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(routeFromHash(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
