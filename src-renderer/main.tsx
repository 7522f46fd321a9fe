import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App";
import { resolveApiBase } from "./api/base";
import { createApiClient } from "./api/client";
import "./styles/app.css";

const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root element");
const root = createRoot(container);

resolveApiBase().then(
  (base) =>
    root.render(
      <StrictMode>
        <App client={createApiClient(base)} />
      </StrictMode>,
    ),
  (err: unknown) =>
    root.render(
      <main className="fatal" role="alert">
        <h1>The console cannot find the relay</h1>
        <p>{err instanceof Error ? err.message : String(err)}</p>
      </main>,
    ),
);
