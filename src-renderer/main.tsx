import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App";
import { resolveApiBase } from "./api/base";
import { desktopBridge } from "./api/bridge";
import { createApiClient } from "./api/client";
import { OperatorSession } from "./auth/session";
import "./styles/app.css";
import "./styles/console.css";

const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root element");
const root = createRoot(container);

function tabStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled: the token lives in memory until the tab closes
  }
}

resolveApiBase().then(
  (base) => {
    const session = new OperatorSession(tabStorage());
    const client = createApiClient(base, undefined, session);
    const bridge = desktopBridge();
    void session.resume(client, {
      desktopToken: async () => (bridge && typeof bridge.getOperatorToken === "function" ? bridge.getOperatorToken() : null),
    });
    root.render(
      <StrictMode>
        <App client={client} session={session} />
      </StrictMode>,
    );
  },
  (err: unknown) =>
    root.render(
      <main className="fatal" role="alert">
        <h1>The console cannot find the relay</h1>
        <p>{err instanceof Error ? err.message : String(err)}</p>
      </main>,
    ),
);
