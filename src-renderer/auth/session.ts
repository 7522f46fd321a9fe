import { ApiError, type ApiClient, type OperatorAuth } from "../api/client";

/**
 * The operator's sign-in. In a browser the token lives in sessionStorage (this
 * tab only, gone when it closes); in the desktop app the host hands it over
 * through the preload bridge. Either way it is sent only to /admin, as
 * `Authorization: Bearer`, and dropped the moment the relay refuses it.
 */
export type SessionState = { status: "checking" } | { status: "signed-out"; notice: string | null } | { status: "signed-in"; via: "typed" | "desktop" };

export const TOKEN_STORAGE_KEY = "relay-console.operator-token";

export interface TokenSource {
  /** The desktop host's token, or null (browser, or a host that keeps only the hash). */
  desktopToken(): Promise<string | null>;
}

type Listener = () => void;

export class OperatorSession implements OperatorAuth {
  private state: SessionState = { status: "checking" };
  private current: string | null = null;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null) {}

  subscribe = (l: Listener): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  getState = (): SessionState => this.state;

  token(): string | null {
    return this.current;
  }

  onUnauthorized(): void {
    // A refusal while a candidate is being checked is the sign-in form's answer, not an expiry.
    if (this.state.status !== "signed-in") return;
    this.signOut("The relay refused the operator token (it was changed or the relay was reset). Sign in again.");
  }

  /** On start: the desktop host's token, else this tab's remembered one, else the sign-in form. */
  async resume(api: ApiClient, source: TokenSource): Promise<void> {
    let desktop: string | null;
    try {
      desktop = await source.desktopToken();
    } catch {
      desktop = null;
    }
    const stored = this.storage?.getItem(TOKEN_STORAGE_KEY) ?? null;
    for (const [token, via] of [
      [desktop, "desktop"],
      [stored, "typed"],
    ] as const) {
      if (!token) continue;
      const verdict = await this.check(api, token);
      if (verdict === "ok") return this.enter(token, via);
      if (verdict !== "refused") return this.set({ status: "signed-out", notice: verdict });
    }
    this.storage?.removeItem(TOKEN_STORAGE_KEY);
    this.set({ status: "signed-out", notice: null });
  }

  /** Checks the token against the relay; answers null when signed in, else what to tell the operator. */
  async signIn(api: ApiClient, typed: string): Promise<string | null> {
    const token = typed.trim();
    if (!token) return "Paste the operator token.";
    const verdict = await this.check(api, token);
    if (verdict === "refused") return "The relay did not accept this token. Check it and try again.";
    if (verdict !== "ok") return verdict;
    this.storage?.setItem(TOKEN_STORAGE_KEY, token);
    this.enter(token, "typed");
    return null;
  }

  signOut(notice: string | null = null): void {
    this.current = null;
    this.storage?.removeItem(TOKEN_STORAGE_KEY);
    this.set({ status: "signed-out", notice });
  }

  private async check(api: ApiClient, token: string): Promise<"ok" | "refused" | string> {
    const before = this.current;
    this.current = token;
    try {
      await api.getJson("/admin/session");
      return "ok";
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return "refused";
      if (e instanceof ApiError && e.status === 429) return "Too many failed attempts from this address: wait a minute, then try again.";
      return e instanceof Error ? `Could not check the token: ${e.message}` : "Could not check the token.";
    } finally {
      this.current = before;
    }
  }

  private enter(token: string, via: "typed" | "desktop"): void {
    this.current = token;
    this.set({ status: "signed-in", via });
  }

  private set(s: SessionState): void {
    this.state = s;
    for (const l of this.listeners) l();
  }
}
