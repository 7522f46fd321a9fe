import type { Migration, SqlStatement } from "./types";

export const MIGRATIONS_TABLE_SQL =
  "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)";

export function sortedMigrations(migrations: readonly Migration[]): Migration[] {
  const seen = new Set<number>();
  for (const m of migrations) {
    if (!Number.isSafeInteger(m.version) || m.version <= 0) throw new Error(`migration "${m.name}": version must be a positive integer`);
    if (seen.has(m.version)) throw new Error(`migration version ${m.version} is defined twice`);
    seen.add(m.version);
  }
  return [...migrations].sort((a, b) => a.version - b.version);
}

export interface AppliedMigration {
  version: number;
  name: string;
}

/**
 * Migrations still to apply, in order. A pending migration numbered below one
 * already applied is refused: it was written against an older schema and
 * running it now would apply changes in a different order on different
 * installations.
 */
export function pendingMigrations(all: readonly Migration[], applied: readonly AppliedMigration[], log: (msg: string) => void): Migration[] {
  const byVersion = new Map(applied.map((a) => [a.version, a.name]));
  const maxApplied = applied.reduce((m, a) => Math.max(m, a.version), 0);
  const pending: Migration[] = [];
  for (const m of all) {
    const appliedName = byVersion.get(m.version);
    if (appliedName === undefined) pending.push(m);
    else if (appliedName !== m.name) log(`migration ${m.version}: applied as "${appliedName}", now named "${m.name}"`);
  }
  const early = pending.find((m) => m.version < maxApplied);
  if (early) throw new Error(`migration ${early.version} "${early.name}" is older than applied migration ${maxApplied}; renumber it above ${maxApplied}`);
  const known = new Set(all.map((m) => m.version));
  for (const a of applied) if (!known.has(a.version)) log(`migration ${a.version} "${a.name}" is applied but unknown to this build`);
  return pending;
}

/** One atomic batch per migration, so a failed migration leaves no half-applied schema and no record of itself. */
export function migrationBatch(m: Migration, now: number): SqlStatement[] {
  return [
    ...m.statements.map((sql) => ({ sql })),
    { sql: "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", params: [m.version, m.name, now] },
  ];
}
