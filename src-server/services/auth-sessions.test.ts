import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loginMessage } from "../../src-shared/messages";
import { newWallet } from "../../tests/support/wallet";
import { SqlAuthStore } from "../adapters/storage-sqljs/auth-store";
import { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../adapters/storage-sqljs/schema-migrations";
import type { AuthStore } from "../ports/auth-store";
import { AuthService, TOKEN_CACHE_SIZE } from "./auth";

const enc = new TextEncoder();
const settings = { tokenTtlSec: 3600, maxAgeSec: 300, maxFutureSec: 60 };
const dirs: string[] = [];
const dbs: DurableDb[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** One store two instances share, and how often each instance asked it for a token. */
async function sharedStore(): Promise<{ db: DurableDb; store: AuthStore; instance: (now: () => number) => { auth: AuthService; lookups: () => number } }> {
  const dir = mkdtempSync(path.join(tmpdir(), "auth-sessions-"));
  dirs.push(dir);
  const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, fsync: false, snapshotIntervalMs: 0 });
  dbs.push(db);
  const store = new SqlAuthStore(db);
  const instance = (now: () => number) => {
    let lookups = 0;
    const counted: AuthStore = {
      consumeLogin: (...a) => store.consumeLogin(...a),
      saveToken: (...a) => store.saveToken(...a),
      prune: (...a) => store.prune(...a),
      findToken: (id) => (lookups++, store.findToken(id)),
    };
    return { auth: new AuthService(counted, settings, now), lookups: () => lookups };
  };
  return { db, store, instance };
}

describe("sessions across instances on one store", () => {
  it("finds on instance A a token instance B issued, also one B saved after A had looked for it and not found it", async () => {
    const now = 1_800_000_000;
    const { store, instance } = await sharedStore();
    const a = instance(() => now);
    const b = instance(() => now);
    const w = newWallet();
    const login = await b.auth.login({ wallet: w.address, walletBytes: w.publicKey, signature: w.signBytes(enc.encode(loginMessage(now))), message: now });
    if (!login.ok) throw new Error("login refused");
    expect(await a.auth.walletOf(login.value.id)).toBe(w.address);

    const later = randomUUID();
    expect(await a.auth.walletOf(later)).toBeNull();
    await store.saveToken({ id: later, wallet: "wallet-of-b", expiresAt: now + 60 }, now);
    expect(await a.auth.walletOf(later)).toBe("wallet-of-b");
  });

  it("asks the store for a found token once: its next requests are answered by the instance, a token in capitals too", async () => {
    const now = 1_800_000_000;
    const { store, instance } = await sharedStore();
    const a = instance(() => now);
    const id = randomUUID();
    await store.saveToken({ id, wallet: "w", expiresAt: now + 60 }, now);
    for (let i = 0; i < 5; i++) expect(await a.auth.walletOf(i % 2 ? id.toUpperCase() : id)).toBe("w");
    expect(a.lookups()).toBe(1);
  });

  it("refuses a cached token once the clock passes its expiry", async () => {
    let now = 1_800_000_000;
    const { store, instance } = await sharedStore();
    const a = instance(() => now);
    const id = randomUUID();
    await store.saveToken({ id, wallet: "w", expiresAt: now + 60 }, now);
    expect(await a.auth.walletOf(id)).toBe("w");
    now += 59;
    expect(await a.auth.walletOf(id)).toBe("w");
    now += 1;
    expect(await a.auth.walletOf(id)).toBeNull();
    expect(await a.auth.walletOf(id)).toBeNull();
  });

  it(`remembers at most ${TOKEN_CACHE_SIZE} tokens, forgetting the least recently used first`, async () => {
    const now = 1_800_000_000;
    const { db, instance } = await sharedStore();
    const a = instance(() => now);
    const ids = Array.from({ length: TOKEN_CACHE_SIZE + 1 }, () => randomUUID());
    await db.write(
      ids.map((id) => ({ sql: "INSERT INTO auth_tokens (id, wallet, created_at, expires_at) VALUES (?, ?, ?, ?)", params: [id, "w", now, now + 60] })),
    );
    // The first is used again before the rest arrive: the second is then the least recently used.
    await a.auth.walletOf(ids[0]);
    await a.auth.walletOf(ids[1]);
    await a.auth.walletOf(ids[0]);
    for (const id of ids.slice(2)) await a.auth.walletOf(id);
    const before = a.lookups();
    expect(before).toBe(TOKEN_CACHE_SIZE + 1);
    await a.auth.walletOf(ids[0]);
    await a.auth.walletOf(ids[TOKEN_CACHE_SIZE]);
    expect(a.lookups()).toBe(before);
    await a.auth.walletOf(ids[1]);
    expect(a.lookups()).toBe(before + 1);
  });
});
