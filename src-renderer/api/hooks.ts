import { useQuery } from "@tanstack/react-query";
import { desktopBridge } from "./bridge";
import { useApi } from "./context";
import { queryKeys } from "./keys";
import { fetchVersion } from "./relay";

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
