export type SqlValue = number | string | Uint8Array | null;

export interface SqlStatement {
  sql: string;
  params?: SqlValue[];
}

/** Numbered schema change; applied in version order at open, recorded in `schema_migrations`. */
export interface Migration {
  version: number;
  name: string;
  statements: string[];
}
