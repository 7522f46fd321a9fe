import { createContext, useContext, useSyncExternalStore, type ReactNode } from "react";
import type { OperatorSession, SessionState } from "./session";

const SessionContext = createContext<OperatorSession | null>(null);

export function SessionProvider({ session, children }: { session: OperatorSession; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): { session: OperatorSession; state: SessionState } {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession() outside <SessionProvider>");
  const state = useSyncExternalStore(session.subscribe, session.getState);
  return { session, state };
}
