import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, type ApiClient } from "../api/client";
import { ApiProvider } from "../api/context";
import { HealthPage } from "../features/health/HealthPage";
import { PoolsPage } from "../features/pools/PoolsPage";
import { useRoute } from "./routes";
import { Shell } from "./Shell";

function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 2_000,
        // A 4xx is an answer (PoolNotFound, ...), not a hiccup: do not retry it.
        retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
        retryDelay: 1_000,
      },
    },
  });
}

export function App({ client }: { client: ApiClient }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <ApiProvider client={client}>
      <QueryClientProvider client={queryClient}>
        <Routed />
      </QueryClientProvider>
    </ApiProvider>
  );
}

function Routed() {
  const route = useRoute();
  return <Shell route={route}>{route === "pools" ? <PoolsPage /> : <HealthPage />}</Shell>;
}
