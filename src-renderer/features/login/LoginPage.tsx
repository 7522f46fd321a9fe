import { useState, type FormEvent } from "react";
import { useApi } from "../../api/context";
import { useSession } from "../../auth/context";
import { Field } from "../../components/SelectField";

/** The operator token, asked for before anything else is shown. */
export function LoginPage() {
  const api = useApi();
  const { session, state } = useSession();
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const notice = state.status === "signed-out" ? state.notice : null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    const refused = await session.signIn(api, token);
    setBusy(false);
    if (refused) setProblem(refused);
  };

  return (
    <main className="login">
      <form className="login-card panel" onSubmit={(e) => void submit(e)} aria-labelledby="login-title">
        <div className="shell-brand">
          <span className="shell-logo" aria-hidden="true" />
          <span className="shell-title">Withdrawal Relay</span>
        </div>
        <h1 id="login-title">Operator sign-in</h1>
        <p className="muted">
          The operator token was printed once, in the relay&apos;s output, the first time it started (or is the value of <code>RELAY_OPERATOR_TOKEN</code>). It
          stays in this browser tab only.
        </p>
        {notice ? (
          <p className="banner banner-warn login-notice" role="status">
            {notice}
          </p>
        ) : null}
        <Field label="Operator token">
          <input
            className="input"
            type="password"
            name="operator-token"
            autoComplete="current-password"
            spellCheck={false}
            value={token}
            onChange={(e) => setToken(e.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? "login-problem" : undefined}
            autoFocus
          />
        </Field>
        {problem ? (
          <p id="login-problem" className="field-error" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={busy || token.trim() === ""}>
          {busy ? "Checking…" : "Sign in"}
        </button>
        <p className="muted login-where">Relay: {api.base}</p>
      </form>
    </main>
  );
}
