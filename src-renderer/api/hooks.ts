import { useQuery } from "@tanstack/react-query";
import { desktopBridge } from "./bridge";
import { useApi } from "./context";
import { queryKeys } from "./keys";
import { fetchHealthDetail, fetchVersion } from "./relay";

/** Health is live data: polled every 5 s while the console is open. */
export const HEALTH_REFRESH_MS = 5_000;

export function useHealthDetail() {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.healthDetail(),
    queryFn: ({ signal }) => fetchHealthDetail(api, signal),
    refetchInterval: HEALTH_REFRESH_MS,
  });
}

export function useVersion(enabled = true) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.version(),
    queryFn: ({ signal }) => fetchVersion(api, signal),
    enabled,
    staleTime: 60_000,
  });
}

/** Facts about the desktop shell; disabled (never fetched) in a plain browser. */
export function useAppInfo() {
  const bridge = desktopBridge();
  return useQuery({
    queryKey: queryKeys.appInfo(),
    queryFn: () => bridge!.getAppInfo(),
    enabled: bridge !== undefined,
    staleTime: Infinity,
  });
}
