import { randomBytes } from "node:crypto";
import type { Network } from "../../../src-shared/networks";
import type { PgDatabase } from "./pool";
import type { Coordination, FollowerLease, InstanceInfo } from "../../ports/coordination";

export interface InstanceIdentity {
  host: string;
  pid: number;
  version: string;
  /** Defaults to host, pid and a random suffix: unique even when a pid is reused after a restart. */
  id?: string;
}

/** A timestamptz as Unix ms, in SQL. */
const MS = (column: string): string => `floor(extract(epoch FROM ${column}) * 1000)::bigint`;

/**
 * Instances and chain-follower leases in PostgreSQL. Every time is the database's clock
 * (statement_timestamp()), never an instance's: two machines whose clocks disagree still agree
 * on whose lease has run out.
 */
export class PgCoordination implements Coordination {
  readonly instanceId: string;

  constructor(
    private readonly db: PgDatabase,
    private readonly self: InstanceIdentity,
  ) {
    this.instanceId = self.id ?? `${self.host}:${self.pid}:${randomBytes(4).toString("hex")}`;
  }

  async heartbeat(): Promise<void> {
    await this.db.query(
      `INSERT INTO instances (id, host, pid, version, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, statement_timestamp(), statement_timestamp())
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = statement_timestamp()`,
      [this.instanceId, this.self.host, this.self.pid, this.self.version],
    );
  }

  async instances(staleMs: number): Promise<InstanceInfo[]> {
    return this.db.query<InstanceInfo>(
      `SELECT id, host, pid, version, ${MS("started_at")} AS "startedAt", ${MS("heartbeat_at")} AS "heartbeatAt" FROM instances
       WHERE heartbeat_at > statement_timestamp() - $1::double precision * interval '1 millisecond' ORDER BY started_at, id`,
      [staleMs],
    );
  }

  /**
   * One statement: a lease nobody holds, or whose time ran out (ours included), is taken under
   * the next epoch; our own live lease is renewed under the same one; anyone else's live lease
   * leaves the row as it is (no row back: null). The row lock serializes two instances trying at once.
   */
  async lead(network: Network, leaseMs: number): Promise<{ epoch: number; leaseUntil: number } | null> {
    const rows = await this.db.query<{ epoch: number; leaseUntil: number }>(
      `INSERT INTO follower_leases AS l (network, holder, epoch, lease_until) VALUES ($1, $2, 1, statement_timestamp() + $3::double precision * interval '1 millisecond')
       ON CONFLICT (network) DO UPDATE SET
         holder = EXCLUDED.holder,
         epoch = CASE WHEN l.holder = EXCLUDED.holder AND l.lease_until > statement_timestamp() THEN l.epoch ELSE l.epoch + 1 END,
         lease_until = EXCLUDED.lease_until
       WHERE l.holder = EXCLUDED.holder OR l.lease_until <= statement_timestamp()
       RETURNING epoch, ${MS("lease_until")} AS "leaseUntil"`,
      [network, this.instanceId, leaseMs],
    );
    return rows[0] ?? null;
  }

  /** Ends our lease now (the epoch stays, so the next holder takes the one after it); another's, or a later epoch of ours, is left alone. */
  async release(network: Network, epoch: number): Promise<void> {
    await this.db.query("UPDATE follower_leases SET lease_until = statement_timestamp() WHERE network = $1 AND holder = $2 AND epoch = $3", [
      network,
      this.instanceId,
      epoch,
    ]);
  }

  /** The first claim wins (the primary key); a later instance reads it back in the same statement's snapshot or the next. */
  async claim(name: string, value: string): Promise<{ value: string; by: string }> {
    await this.db.query(
      "INSERT INTO cluster_identities (name, value, claimed_by, claimed_at) VALUES ($1, $2, $3, statement_timestamp()) ON CONFLICT (name) DO NOTHING",
      [name, value, this.instanceId],
    );
    const [row] = await this.db.query<{ value: string; by: string }>('SELECT value, claimed_by AS "by" FROM cluster_identities WHERE name = $1', [name]);
    return row ?? { value, by: this.instanceId };
  }

  async leases(): Promise<FollowerLease[]> {
    return this.db.query<FollowerLease>(`SELECT network, holder, epoch, ${MS("lease_until")} AS "leaseUntil" FROM follower_leases ORDER BY network`);
  }

  /** A clean stop: our leases end now and we leave the instance list, so others take over and resolve our orphans at once. */
  async close(): Promise<void> {
    await this.db.query("UPDATE follower_leases SET lease_until = statement_timestamp() WHERE holder = $1 AND lease_until > statement_timestamp()", [
      this.instanceId,
    ]);
    await this.db.query("DELETE FROM instances WHERE id = $1", [this.instanceId]);
  }
}
