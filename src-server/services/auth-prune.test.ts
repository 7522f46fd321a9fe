import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loginMessage } from "../../src-shared/messages";
import { newWallet, type TestWallet } from "../../tests/support/wallet";
import { SqlAuthStore } from "../adapters/storage-sqljs/auth-store";
import { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../adapters/storage-sqljs/schema-migrations";
import { AuthService } from "./auth";

const enc = new TextEncoder();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const loginAs = (auth: AuthService, w: TestWallet, t: number) =>
  auth.login({ wallet: w.address, walletBytes: w.publicKey, signature: w.signBytes(enc.encode(loginMessage(t))), message: t });

describe("login rows are deleted as they expire", () => {
  it("drops expired tokens and login messages past their replay window from the store (pruned on a login, at most every 10 minutes)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "auth-prune-"));
    dirs.push(dir);
    const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, fsync: false, snapshotIntervalMs: 0 });
    try {
      let now = 1_800_000_000;
      const auth = new AuthService(new SqlAuthStore(db), { tokenTtlSec: 3600, maxAgeSec: 300, maxFutureSec: 60 }, () => now);
      const rows = () => ({
        tokens: db.get<{ n: number }>("SELECT count(*) AS n FROM auth_tokens")!.n,
        messages: db.get<{ n: number }>("SELECT count(*) AS n FROM login_messages")!.n,
      });

      const first = await loginAs(auth, newWallet(), now);
      expect(first.ok).toBe(true);
      now += 60;
      expect((await loginAs(auth, newWallet(), now)).ok).toBe(true);
      expect(rows()).toEqual({ tokens: 2, messages: 2 });

      // Past both tokens' lifetime: the next login deletes their rows and the spent login messages.
      now += 3600 + 600;
      const third = await loginAs(auth, newWallet(), now);
      expect(third.ok).toBe(true);
      expect(rows()).toEqual({ tokens: 1, messages: 1 });
      if (first.ok) expect(await auth.walletOf(first.value.id)).toBeNull();
    } finally {
      await db.close();
    }
  });
});
