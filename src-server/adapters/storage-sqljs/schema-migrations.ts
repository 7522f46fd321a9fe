import type { Migration } from "./durable-db";
import { leafKindSql, leafRecordSql, u32leSql } from "./leaf-pages";

/**
 * The sandbox ledger's pool, commitment, nullifier and event tables: created by the first migration,
 * and again by protocol v2's after it archives the v1 ones. Frozen, as every shipped migration is.
 */
const SANDBOX_POOLS_TABLE = `CREATE TABLE sandbox_pools (
   network TEXT NOT NULL,
   mint TEXT NOT NULL,
   next_index INTEGER NOT NULL,
   filled_subtrees BLOB NOT NULL,
   roots BLOB NOT NULL,
   created_slot INTEGER NOT NULL,
   PRIMARY KEY (network, mint))`;

const SANDBOX_LEDGER_TABLES = [
  `CREATE TABLE sandbox_commitments (
     network TEXT NOT NULL,
     mint TEXT NOT NULL,
     commitment BLOB NOT NULL,
     PRIMARY KEY (network, mint, commitment))`,
  `CREATE TABLE sandbox_nullifiers (
     network TEXT NOT NULL,
     mint TEXT NOT NULL,
     nullifier_hash BLOB NOT NULL,
     kind TEXT NOT NULL,
     signature TEXT NOT NULL,
     slot INTEGER NOT NULL,
     PRIMARY KEY (network, mint, nullifier_hash))`,
  `CREATE TABLE sandbox_events (
     id INTEGER PRIMARY KEY,
     network TEXT NOT NULL,
     mint TEXT NOT NULL,
     signature TEXT NOT NULL,
     leaf_index INTEGER NOT NULL,
     commitment BLOB NOT NULL,
     depositor TEXT NOT NULL,
     amount TEXT NOT NULL,
     slot INTEGER NOT NULL)`,
  `CREATE INDEX sandbox_events_pool ON sandbox_events (network, mint, id)`,
];

const migration = (version: number, name: string, statements: string[]): Migration => ({ version, name, statements });

/**
 * The relay's schema, numbered. Applied in order at start; never edit a
 * released migration, add the next number.
 */
export const MIGRATIONS: Migration[] = [
  migration(1, "trees", [
    `CREATE TABLE pools (
         id INTEGER PRIMARY KEY,
         network TEXT NOT NULL,
         mint TEXT NOT NULL,
         next_index INTEGER NOT NULL DEFAULT 0,
         root BLOB,
         cursor TEXT,
         created_at INTEGER NOT NULL,
         UNIQUE (network, mint))`,
    // Nodes in chunks of 64 (2 KiB): one row per chunk keeps start-up loads
    // to a few thousand rows for a million leaves; blob_put edits a chunk in place.
    `CREATE TABLE tree_chunks (
         pool_id INTEGER NOT NULL,
         level INTEGER NOT NULL,
         chunk INTEGER NOT NULL,
         data BLOB NOT NULL,
         PRIMARY KEY (pool_id, level, chunk))`,
    `CREATE TABLE tree_roots (
         pool_id INTEGER NOT NULL,
         seq INTEGER NOT NULL,
         root BLOB NOT NULL,
         next_index INTEGER NOT NULL,
         created_at INTEGER NOT NULL,
         PRIMARY KEY (pool_id, seq))`,
    `CREATE TABLE indexed_leaves (
         pool_id INTEGER NOT NULL,
         leaf_index INTEGER NOT NULL,
         signature TEXT NOT NULL,
         slot INTEGER NOT NULL,
         indexed_at INTEGER NOT NULL,
         PRIMARY KEY (pool_id, leaf_index))`,
    `CREATE INDEX indexed_leaves_signature ON indexed_leaves (signature)`,
  ]),
  migration(2, "auth", [
    `CREATE TABLE auth_tokens (
         id TEXT PRIMARY KEY,
         wallet TEXT NOT NULL,
         created_at INTEGER NOT NULL,
         expires_at INTEGER NOT NULL)`,
    `CREATE INDEX auth_tokens_expiry ON auth_tokens (expires_at)`,
    `CREATE TABLE login_messages (
         wallet TEXT NOT NULL,
         message INTEGER NOT NULL,
         forget_after INTEGER NOT NULL,
         PRIMARY KEY (wallet, message))`,
  ]),
  migration(3, "sandbox ledger", [
    `CREATE TABLE sandbox_meta (network TEXT PRIMARY KEY, slot INTEGER NOT NULL)`,
    `CREATE TABLE sandbox_balances (
         network TEXT NOT NULL,
         owner TEXT NOT NULL,
         mint TEXT NOT NULL,
         amount TEXT NOT NULL,
         PRIMARY KEY (network, owner, mint))`,
    SANDBOX_POOLS_TABLE,
    `CREATE TABLE sandbox_deposits (
         network TEXT NOT NULL,
         signature TEXT NOT NULL,
         mint TEXT NOT NULL,
         amount TEXT NOT NULL,
         commitment BLOB NOT NULL,
         depositor TEXT NOT NULL, status TEXT NOT NULL, leaf_index INTEGER,
         slot INTEGER NOT NULL,
         created_at INTEGER NOT NULL,
         PRIMARY KEY (network, signature))`,
    ...SANDBOX_LEDGER_TABLES,
  ]),
  migration(4, "relay records", [
    // No client address column, by design: a relay record never sits beside who sent it.
    `CREATE TABLE relays (
         id TEXT PRIMARY KEY,
         kind TEXT NOT NULL,
         network TEXT NOT NULL,
         mint TEXT NOT NULL,
         output_mint TEXT,
         recipient TEXT NOT NULL,
         nullifier_hash TEXT NOT NULL,
         deposit_size TEXT NOT NULL,
         fee TEXT NOT NULL,
         status TEXT NOT NULL,
         error TEXT,
         signature TEXT,
         received_at INTEGER NOT NULL,
         updated_at INTEGER NOT NULL,
         steps TEXT NOT NULL)`,
    `CREATE INDEX relays_received ON relays (received_at)`,
    `CREATE INDEX relays_nullifier ON relays (nullifier_hash)`,
  ]),
  migration(5, "compliance", [
    // Operators' edits on top of the loaded sanctions list: one per address, the latest wins.
    `CREATE TABLE sanctions_overrides (
         address TEXT PRIMARY KEY,
         action TEXT NOT NULL,
         reason TEXT NOT NULL,
         created_at INTEGER NOT NULL)`,
    `CREATE TABLE sanctions_override_log (
         id INTEGER PRIMARY KEY,
         address TEXT NOT NULL,
         change TEXT NOT NULL,
         reason TEXT NOT NULL,
         at INTEGER NOT NULL)`,
    `CREATE INDEX sanctions_override_log_address ON sanctions_override_log (address)`,
    // Every effective list version that was in force, so a decision's version maps to its source.
    `CREATE TABLE sanctions_versions (
         version TEXT PRIMARY KEY,
         base_version TEXT NOT NULL,
         source TEXT NOT NULL,
         content_sha256 TEXT NOT NULL,
         count INTEGER NOT NULL,
         base_count INTEGER NOT NULL,
         overrides INTEGER NOT NULL,
         first_at INTEGER NOT NULL,
         last_at INTEGER NOT NULL)`,
    `CREATE TABLE compliance_decisions (
         id INTEGER PRIMARY KEY,
         at INTEGER NOT NULL,
         purpose TEXT NOT NULL,
         network TEXT,
         address TEXT NOT NULL,
         outcome TEXT NOT NULL,
         list_version TEXT,
         expires_at INTEGER,
         detail TEXT)`,
    `CREATE INDEX compliance_decisions_at ON compliance_decisions (at)`,
    `CREATE INDEX compliance_decisions_address ON compliance_decisions (address)`,
  ]),
  migration(6, "reverts", [
    `CREATE TABLE reverts (
         id TEXT PRIMARY KEY,
         network TEXT NOT NULL,
         deposit_signature TEXT NOT NULL,
         wallet TEXT NOT NULL,
         mint TEXT,
         amount TEXT,
         status TEXT NOT NULL,
         error TEXT,
         signature TEXT,
         requested_at INTEGER NOT NULL,
         updated_at INTEGER NOT NULL,
         steps TEXT NOT NULL)`,
    `CREATE INDEX reverts_requested ON reverts (requested_at)`,
    `CREATE INDEX reverts_deposit ON reverts (network, deposit_signature)`,
  ]),
  migration(7, "swap pools", [
    // Sandbox constant-product pools, one per unordered mint pair (mint_a < mint_b). Their reserves are
    // the amm_key account's balances in sandbox_balances, so a swap moves them in the withdrawal's own write.
    `CREATE TABLE sandbox_swap_pools (
         network TEXT NOT NULL,
         mint_a TEXT NOT NULL,
         mint_b TEXT NOT NULL,
         amm_key TEXT NOT NULL,
         created_at INTEGER NOT NULL,
         PRIMARY KEY (network, mint_a, mint_b))`,
    // relay_swap records: the quote taken when the request arrived (JSON, amounts as text),
    // the output the swap delivered, and the slippage seen against the quote (bps).
    `ALTER TABLE relays ADD COLUMN swap_quote TEXT`,
    `ALTER TABLE relays ADD COLUMN swap_out TEXT`,
    `ALTER TABLE relays ADD COLUMN swap_slippage_bps REAL`,
  ]),
  migration(8, "console aggregates", [
    // Relays older than console.retentionDays, folded per UTC day: counts and sums only, no recipient or nullifier.
    `CREATE TABLE relay_daily (
         day TEXT NOT NULL,
         network TEXT NOT NULL,
         mint TEXT NOT NULL,
         kind TEXT NOT NULL,
         status TEXT NOT NULL,
         count INTEGER NOT NULL,
         volume TEXT NOT NULL,
         fees TEXT NOT NULL,
         PRIMARY KEY (day, network, mint, kind, status))`,
    // The operator's pause switches; mint '*' pauses the whole network.
    `CREATE TABLE console_pauses (
         network TEXT NOT NULL,
         mint TEXT NOT NULL,
         reason TEXT NOT NULL,
         paused_at INTEGER NOT NULL,
         PRIMARY KEY (network, mint))`,
  ]),
  {
    version: 9,
    name: "drop the unused leaf signature index",
    // Nothing looks leaves up by signature; the index cost ~100 bytes a leaf on disk and in memory.
    statements: [`DROP INDEX IF EXISTS indexed_leaves_signature`],
  },
  {
    version: 10,
    name: "relay submission attempts and network fee",
    // A Solana relay may take several signed transactions (fresh blockhash each); every one is kept.
    statements: [`ALTER TABLE relays ADD COLUMN attempts TEXT`, `ALTER TABLE relays ADD COLUMN network_fee_lamports TEXT`],
  },
  // Protocol v2 (docs/zk.md, docs/decisions.md): leaves are Poseidon(precommitment, amount, mint), computed by
  // the pool. The sandbox pools of a v1 store were built on the v1 leaf rule and are archived
  // whole (their trees, deposits, commitment markers, nullifiers and events move to v1_*
  // tables); the indexer's copies of those pools are dropped so the sandbox starts v2 pools
  // afresh. Relay, revert and compliance records are kept. Solana pools are left alone: the
  // chain is their source of truth and the indexer rechecks its root against it.
  migration(11, "protocol v2", [
    `CREATE TABLE archived_pools (
         network TEXT NOT NULL,
         mint TEXT NOT NULL,
         protocol INTEGER NOT NULL,
         leaves INTEGER NOT NULL,
         root BLOB,
         archived_at INTEGER NOT NULL,
         reason TEXT NOT NULL,
         PRIMARY KEY (network, mint, protocol))`,
    `INSERT INTO archived_pools (network, mint, protocol, leaves, root, archived_at, reason)
         SELECT s.network, s.mint, 1, s.next_index, p.root, CAST(strftime('%s', 'now') AS INTEGER) * 1000,
                'sandbox pool built on protocol v1 leaves (depositor-supplied commitments)'
         FROM sandbox_pools s LEFT JOIN pools p ON p.network = s.network AND p.mint = s.mint`,
    `DELETE FROM tree_chunks WHERE pool_id IN (SELECT p.id FROM pools p JOIN sandbox_pools s ON p.network = s.network AND p.mint = s.mint)`,
    `DELETE FROM tree_roots WHERE pool_id IN (SELECT p.id FROM pools p JOIN sandbox_pools s ON p.network = s.network AND p.mint = s.mint)`,
    `DELETE FROM indexed_leaves WHERE pool_id IN (SELECT p.id FROM pools p JOIN sandbox_pools s ON p.network = s.network AND p.mint = s.mint)`,
    `DELETE FROM pools WHERE EXISTS (SELECT 1 FROM sandbox_pools s WHERE s.network = pools.network AND s.mint = pools.mint)`,
    `ALTER TABLE sandbox_pools RENAME TO v1_sandbox_pools`,
    `ALTER TABLE sandbox_deposits RENAME TO v1_sandbox_deposits`,
    `ALTER TABLE sandbox_commitments RENAME TO v1_sandbox_commitments`,
    `ALTER TABLE sandbox_nullifiers RENAME TO v1_sandbox_nullifiers`,
    `ALTER TABLE sandbox_events RENAME TO v1_sandbox_events`,
    `DROP INDEX IF EXISTS sandbox_events_pool`,
    SANDBOX_POOLS_TABLE,
    // precommitment: what the depositor sent; commitment: the leaf the pool computed from it
    // and the amount it moved (NULL when the precommitment was not a usable field element).
    `CREATE TABLE sandbox_deposits (
         network TEXT NOT NULL,
         signature TEXT NOT NULL,
         mint TEXT NOT NULL,
         amount TEXT NOT NULL,
         precommitment BLOB NOT NULL,
         commitment BLOB,
         depositor TEXT NOT NULL,
         status TEXT NOT NULL,
         leaf_index INTEGER,
         slot INTEGER NOT NULL,
         created_at INTEGER NOT NULL,
         PRIMARY KEY (network, signature))`,
    ...SANDBOX_LEDGER_TABLES,
    // The terms each relay's proof was bound to (extDataHash): who received the fee, and a swap's minimum.
    `ALTER TABLE relays ADD COLUMN relayer TEXT`,
    `ALTER TABLE relays ADD COLUMN min_out TEXT`,
    // Fees the operator set at run time (mint '*': the network's default), over the config file's.
    // prev_*: the fee in force before, still accepted until set_at + fees.graceSec, since
    // wallets prove for the published fee and a proof in flight must survive an increase.
    `CREATE TABLE fee_overrides (
         network TEXT NOT NULL,
         mint TEXT NOT NULL,
         bps INTEGER,
         floor TEXT,
         prev_bps INTEGER NOT NULL,
         prev_floor TEXT NOT NULL,
         set_at INTEGER NOT NULL,
         PRIMARY KEY (network, mint))`,
  ]),
  // A row per leaf and the node chunks made the SQLite image (held whole in memory and
  // written whole at every snapshot) about 235 bytes a leaf; at a million leaves that was
  // 310 MiB. They move to page files beside it (layout: leaf-pages.ts); the right edge's
  // partial nodes stay in SQL (tree_edges) so the page files only ever hold final nodes.
  // 2048 = 64 nodes of 32 bytes per tree_chunks row; 104 = LEAF_RECORD; 4 = TIME_BYTES.
  migration(13, "tree nodes and leaf metadata in page files", [
    `CREATE TABLE tree_edges (
         pool_id INTEGER NOT NULL,
         level INTEGER NOT NULL,
         node BLOB NOT NULL,
         PRIMARY KEY (pool_id, level)) WITHOUT ROWID`,
    `INSERT INTO tree_edges (pool_id, level, node)
         SELECT c.pool_id, c.level, substr(c.data, ((p.next_index >> c.level) % 64) * 32 + 1, 32)
         FROM tree_chunks c JOIN pools p ON p.id = c.pool_id
         WHERE c.level > 0 AND p.next_index % (1 << c.level) != 0 AND c.chunk = (p.next_index >> c.level) / 64`,
    `SELECT page_put('tree-' || pool_id || '-' || level, chunk * 2048, data) FROM tree_chunks ORDER BY pool_id, level, chunk`,
    `SELECT page_put('leaves-' || pool_id, leaf_index * 104, leaf_record(signature, slot)), page_put('times-' || pool_id, leaf_index * 4, u32le(indexed_at))
         FROM indexed_leaves ORDER BY pool_id, leaf_index`,
    `DROP TABLE tree_chunks`,
    `DROP TABLE indexed_leaves`,
  ]),
  // The relay's own alerts (services/alerts.ts): one row per alert from firing to resolution,
  // and the thresholds the operator changed in the console (JSON by rule key; the config holds the rest).
  migration(14, "alert history and alert rule settings", [
    `CREATE TABLE alert_history (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         rule TEXT NOT NULL,
         subject TEXT NOT NULL,
         summary TEXT NOT NULL,
         detail TEXT NOT NULL,
         started_at INTEGER NOT NULL,
         resolved_at INTEGER,
         last_notified_at INTEGER NOT NULL,
         notifications INTEGER NOT NULL)`,
    `CREATE INDEX alert_history_open ON alert_history (resolved_at)`,
    `CREATE TABLE alert_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  ]),
  // Protocol v3 (docs/zk.md): every withdrawal inserts a change leaf. A v2 store keeps its pools
  // (deposit leaves are unchanged). Each indexed leaf's kind and, for a deposit, its amount (the
  // console's anonymity sets) go in a lean row beside the page files of migration 13, which keep
  // signature and slot. Every leaf indexed before v3 is a deposit; the sandbox's own pools get
  // their amounts from its deposits, a solana pool's are not in the store and stay NULL.
  migration(15, "protocol v3: change leaves", [
    `CREATE TABLE indexed_leaves (
         pool_id INTEGER NOT NULL,
         leaf_index INTEGER NOT NULL,
         kind TEXT NOT NULL DEFAULT 'deposit',
         amount TEXT,
         PRIMARY KEY (pool_id, leaf_index)) WITHOUT ROWID`,
    `WITH RECURSIVE leaf(pool_id, leaf_index, next_index) AS (
         SELECT id, 0, next_index FROM pools WHERE next_index > 0
         UNION ALL SELECT pool_id, leaf_index + 1, next_index FROM leaf WHERE leaf_index + 1 < next_index)
       INSERT INTO indexed_leaves (pool_id, leaf_index, kind, amount) SELECT pool_id, leaf_index, 'deposit', NULL FROM leaf`,
    `UPDATE indexed_leaves SET amount = (
         SELECT d.amount FROM sandbox_deposits d JOIN pools p ON p.network = d.network AND p.mint = d.mint
         JOIN sandbox_pools s ON s.network = d.network AND s.mint = d.mint
         WHERE p.id = indexed_leaves.pool_id AND d.leaf_index = indexed_leaves.leaf_index AND d.status != 'failed')`,
    // The sandbox's leaf events: deposits as before (depositor, amount), and change leaves (the
    // withdrawal's nullifierHash). Ids are kept: an indexed pool's cursor is the last id it applied.
    `CREATE TABLE sandbox_leaf_events (
         id INTEGER PRIMARY KEY,
         network TEXT NOT NULL,
         mint TEXT NOT NULL,
         kind TEXT NOT NULL DEFAULT 'deposit',
         signature TEXT NOT NULL,
         leaf_index INTEGER NOT NULL,
         commitment BLOB NOT NULL,
         depositor TEXT,
         amount TEXT,
         nullifier_hash BLOB,
         slot INTEGER NOT NULL)`,
    `INSERT INTO sandbox_leaf_events (id, network, mint, kind, signature, leaf_index, commitment, depositor, amount, nullifier_hash, slot)
         SELECT id, network, mint, 'deposit', signature, leaf_index, commitment, depositor, amount, NULL, slot FROM sandbox_events`,
    `DROP INDEX IF EXISTS sandbox_events_pool`,
    `DROP TABLE sandbox_events`,
    `CREATE INDEX sandbox_leaf_events_pool ON sandbox_leaf_events (network, mint, id)`,
    // The relay record: the change leaf the proof inserts, and where it went once landed.
    `ALTER TABLE relays ADD COLUMN change_commitment BLOB`,
    `ALTER TABLE relays ADD COLUMN change_leaf_index INTEGER`,
  ]),
  // Issue 27: the instance that took a relay's nullifier lock (null on records before it).
  migration(16, "relay lock holder", [`ALTER TABLE relays ADD COLUMN holder TEXT`]),
  // Migration 15's row per leaf made the SQLite image, which sql.js holds whole in memory and
  // every start copies in and every snapshot writes out, 29 MiB at a million leaves (about
  // 0.5 MiB without it). Each leaf's kind and a deposit's amount move to a page file beside
  // the signature and slot records (layout: leaf-pages.ts; 9 = KIND_RECORD).
  migration(17, "leaf kinds and amounts in page files", [
    `SELECT page_put('kinds-' || pool_id, leaf_index * 9, leaf_kind(kind, amount)) FROM indexed_leaves ORDER BY pool_id, leaf_index`,
    `DROP TABLE indexed_leaves`,
  ]),
];

/**
 * blob_put(blob, offset, bytes): `blob` with `bytes` written at `offset`,
 * zero-extended as needed. Deterministic, so journal replay reproduces it.
 */
export function blobPut(...args: (number | string | Uint8Array | null)[]): Uint8Array {
  const [blob, offset, bytes] = args;
  if (typeof offset !== "number" || !(bytes instanceof Uint8Array)) throw new Error("blob_put(blob, offset, bytes)");
  const base = blob instanceof Uint8Array ? blob : new Uint8Array(0);
  const out = new Uint8Array(Math.max(base.length, offset + bytes.length));
  out.set(base);
  out.set(bytes, offset);
  return out;
}

export const SQL_FUNCTIONS = { blob_put: blobPut, leaf_record: leafRecordSql, u32le: u32leSql, leaf_kind: leafKindSql };
