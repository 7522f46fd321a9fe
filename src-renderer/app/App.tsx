import { QueryClient, QueryClientProvider, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useState } from "react";
import { ApiError, type ApiClient } from "../api/client";
import { ApiProvider } from "../api/context";
import { queryKeys } from "../api/keys";
import { SessionProvider, useSession } from "../auth/context";
import type { OperatorSession } from "../auth/session";
import { Loading } from "../components/StateViews";
import { LoginPage } from "../features/login/LoginPage";
import { Page } from "./pages";
import { useRoute } from "./routes";
import { Shell } from "./Shell";

/** Loaded only when a depositor opens #/wallet: the wallet adapter stays out of the operator's console. */
const WalletPage = lazy(() => import("../features/wallet/WalletPage"));

function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 2_000,
        // A 4xx is an answer (PoolNotFound, 401, ...), not a hiccup: do not retry it.
        retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
        retryDelay: 1_000,
      },
    },
  });
}

export function App({ client, session }: { client: ApiClient; session: OperatorSession }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <ApiProvider client={client}>
      <SessionProvider session={session}>
        <QueryClientProvider client={queryClient}>
          <Root />
        </QueryClientProvider>
      </SessionProvider>
    </ApiProvider>
  );
}

function Root() {
  const route = useRoute();
  if (route.id === "wallet") {
    return (
      <Suspense fallback={<Loading label="Loading the wallet page…" />}>
        <WalletPage />
      </Suspense>
    );
  }
  return <Gate />;
}

/** Nothing but the sign-in form until the operator token is accepted. */
function Gate() {
  const { state } = useSession();
  const queryClient = useQueryClient();
  useEffect(() => {
    // Signed out: nothing fetched with the token may stay on screen or in memory.
    if (state.status === "signed-out") queryClient.removeQueries({ queryKey: queryKeys.admin.all() });
  }, [state.status, queryClient]);

  if (state.status === "checking") {
    return (
      <main className="login">
        <Loading label="Signing in…" />
      </main>
    );
  }
  if (state.status === "signed-out") return <LoginPage />;
  return <Routed />;
}

function Routed() {
  const route = useRoute();
  return (
    <Shell route={route.id}>
      <Page route={route} />
    </Shell>
  );
}
