import { describe, expect, it, vi } from "vitest";
import { createApiClient } from "../api/client";
import { OperatorSession, TOKEN_STORAGE_KEY } from "./session";

const GOOD = "the-right-operator-token";

function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k), m };
}

/** A relay that accepts GOOD on /admin and records every request's Authorization header. */
function relay() {
  const seen: { url: string; auth: string | null }[] = [];
  const fetchImpl = vi.fn(async (url: string, init?: RequestInit) => {
    const auth = new Headers(init?.headers).get("authorization");
    seen.push({ url, auth });
    if (url.includes("/admin/") && auth !== `Bearer ${GOOD}`) return new Response(JSON.stringify({ error: "Unauthorized" }), { status: 401 });
    return new Response(JSON.stringify({ ok: true }), { status: 200 });
  });
  return { fetchImpl, seen };
}

describe("OperatorSession", () => {
  it("signs in with a good token, keeps it for the tab, and sends it to /admin only", async () => {
    const storage = memoryStorage();
    const session = new OperatorSession(storage);
    const { fetchImpl, seen } = relay();
    const api = createApiClient("http://relay", fetchImpl, session);
    await session.resume(api, { desktopToken: async () => null });
    expect(session.getState()).toEqual({ status: "signed-out", notice: null });

    expect(await session.signIn(api, "wrong")).toMatch(/did not accept/);
    expect(session.getState().status).toBe("signed-out");
    expect(await session.signIn(api, `  ${GOOD} `)).toBeNull();
    expect(session.getState()).toEqual({ status: "signed-in", via: "typed" });
    expect(storage.m.get(TOKEN_STORAGE_KEY)).toBe(GOOD);

    await api.getJson("/fees");
    await api.getJson("/admin/relays");
    expect(seen.at(-2)).toEqual({ url: "http://relay/fees", auth: null });
    expect(seen.at(-1)).toEqual({ url: "http://relay/admin/relays", auth: `Bearer ${GOOD}` });
  });

  it("prefers the desktop host's token, and falls back to the sign-in form when it is refused", async () => {
    const { fetchImpl } = relay();
    const desktop = new OperatorSession(null);
    await desktop.resume(createApiClient("http://relay", fetchImpl, desktop), { desktopToken: async () => GOOD });
    expect(desktop.getState()).toEqual({ status: "signed-in", via: "desktop" });

    const stale = memoryStorage();
    stale.setItem(TOKEN_STORAGE_KEY, "old-token");
    const refused = new OperatorSession(stale);
    await refused.resume(createApiClient("http://relay", fetchImpl, refused), { desktopToken: async () => null });
    expect(refused.getState()).toEqual({ status: "signed-out", notice: null });
    expect(stale.m.has(TOKEN_STORAGE_KEY)).toBe(false);
  });

  it("signs out and forgets the token the moment the relay refuses it", async () => {
    const storage = memoryStorage();
    const session = new OperatorSession(storage);
    let accept = true;
    const api = createApiClient(
      "http://relay",
      async () => (accept ? new Response("{}", { status: 200 }) : new Response('{"error":"Unauthorized"}', { status: 401 })),
      session,
    );
    expect(await session.signIn(api, GOOD)).toBeNull();
    accept = false;
    await expect(api.getJson("/admin/health")).rejects.toMatchObject({ status: 401 });
    expect(session.getState()).toMatchObject({ status: "signed-out", notice: expect.stringMatching(/refused/) });
    expect(session.token()).toBeNull();
    expect(storage.m.has(TOKEN_STORAGE_KEY)).toBe(false);
  });
});
