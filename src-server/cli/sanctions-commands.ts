import { mkdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { configuredListSource } from "../adapters/sanctions-file/configured-source";
import { ReloadingSanctionsList } from "../adapters/sanctions-file/sanctions-list";
import { lockDataDir } from "../adapters/storage-sqljs/data-dir-lock";
import { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { SqlSanctionsStore } from "../adapters/storage-sqljs/sanctions-store";
import { MIGRATIONS, SQL_FUNCTIONS } from "../adapters/storage-sqljs/schema-migrations";
import { ConfigError, loadConfig } from "../config/load";
import type { RelayConfig } from "../config/schema";
import { SanctionsOverrides } from "../services/sanctions-overrides";

/** Where the command writes and what it reads its settings from (the process's, or a test's). */
export interface SanctionsCliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
}

export const USAGE = `usage: npm run sanctions -- <command> [address] [--reason <text>] [--json]

Operator edits of the sanctions list, kept in the relay's database and applied on
top of the loaded list (they are part of its version). Works on the data dir of
RELAY_DATA_DIR / RELAY_CONFIG, like the relay; stop the relay first (one process
per data dir) and start it again to apply. The console's admin API will make the
same edits on a running relay.

commands:
  add <address> --reason <text>     list the address, whatever the loaded list says
  remove <address> --reason <text>  unlist the address (e.g. a confirmed false positive)
  clear <address> --reason <text>   drop the address's override: the loaded list decides
  list                              the overrides in force
  history [address]                 every change, with its reason
  check <address>                   what the list in force (loaded list + overrides) answers

exit codes: 0 ok, 1 refused (bad address or reason, nothing to clear), 2 usage, 3 data dir in use or unreadable`;

/** Runs one command; answers the exit code. */
export async function runSanctionsCli(argv: readonly string[], io: SanctionsCliIo, opts: { defaultDataDir?: string } = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { reason: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    io.stderr(`error: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [command, address, extra] = parsed.positionals;
  if (parsed.values.help || command === "help") return (io.stdout(`${USAGE}\n`), 0);
  const needsAddress = ["add", "remove", "clear", "check"].includes(command ?? "");
  const known = needsAddress || command === "list" || command === "history";
  if (!known || extra !== undefined || (needsAddress && !address) || (command === "list" && address)) {
    io.stderr(`error: ${command ? `bad use of "${command}"` : "a command is required"}\n${USAGE}\n`);
    return 2;
  }
  const reason = parsed.values.reason;
  if (["add", "remove", "clear"].includes(command!) && reason === undefined) {
    io.stderr(`error: ${command} needs --reason <text>: every change is kept with why it was made\n`);
    return 2;
  }

  let config: RelayConfig;
  try {
    config = loadConfig(io.env, opts.defaultDataDir ? { defaultDataDir: opts.defaultDataDir } : {});
  } catch (e) {
    if (e instanceof ConfigError) return (io.stderr(`${e.message}\n`), 2);
    throw e;
  }
  let unlock: () => void;
  try {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    unlock = lockDataDir(config.dataDir);
  } catch (e) {
    io.stderr(`error: ${(e as Error).message}\n`);
    return 3;
  }
  const json = parsed.values.json === true;
  const out = (human: string, data: unknown): void => io.stdout(json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);
  try {
    const db = await DurableDb.open({ dir: config.dataDir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS });
    try {
      const store = new SqlSanctionsStore(db);
      const overrides = new SanctionsOverrides(store);
      switch (command) {
        case "add":
        case "remove": {
          const r = command === "add" ? await overrides.add(address!, reason!) : await overrides.remove(address!, reason!);
          if (!r.ok) return (io.stderr(`error: ${r.error.message}\n`), 1);
          out(`${command === "add" ? "listed" : "unlisted"} ${address} (reason: ${r.value.reason}); start the relay to apply`, r.value);
          return 0;
        }
        case "clear": {
          const r = await overrides.clear(address!, reason!);
          if (!r.ok) return (io.stderr(`error: ${r.error.message}\n`), 1);
          if (!r.value) return (io.stderr(`error: ${address} has no override\n`), 1);
          out(`cleared the override of ${address}; the loaded list decides again`, { address, cleared: true });
          return 0;
        }
        case "list": {
          const list = await overrides.list();
          out(
            list.length
              ? list.map((o) => `${o.action.padEnd(6)} ${o.address}  ${new Date(o.createdAt).toISOString()}  ${o.reason}`).join("\n")
              : "no overrides",
            list,
          );
          return 0;
        }
        case "history": {
          const h = await overrides.history(address);
          out(h.length ? h.map((c) => `${new Date(c.at).toISOString()}  ${c.change.padEnd(6)} ${c.address}  ${c.reason}`).join("\n") : "no changes", h);
          return 0;
        }
        case "check": {
          const list = new ReloadingSanctionsList({
            source: configuredListSource(config.sanctions, config.dataDir),
            store,
            intervalMs: 3_600_000,
          });
          await list.start();
          list.stop();
          const status = list.status();
          try {
            const v = list.check(address!);
            out(`${address}: ${v.listed ? "LISTED" : "not listed"} (list version ${v.listVersion}, ${status.count} addresses from ${status.source})`, {
              address,
              ...v,
              status,
            });
            return 0;
          } catch (e) {
            io.stderr(`error: ${(e as Error).message}\n`);
            return 3;
          }
        }
      }
      return 2;
    } finally {
      await db.close();
    }
  } finally {
    unlock();
  }
}
