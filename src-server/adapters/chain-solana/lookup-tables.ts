/**
 * The relay's own address lookup tables, read once at start and kept
 * (src-shared/solana/lookup-tables.ts says what they hold and how a table is
 * checked): a missing or unusable one stops the start, naming it; they are
 * read again when a transaction names an address they should hold but do not
 * (the operator extended a table for a new pool while it ran).
 */
import type { AddressLookupTableAccount, Commitment } from "@solana/web3.js";
import { LookupTableError, readLookupTable } from "../../../src-shared/solana/lookup-tables";
import type { SolanaRpc } from "./rpc";

/** A table missing an address it should hold is read again at most this often: the table may simply not hold it (a pool added later). */
const REFRESH_AFTER_MS = 30_000;

export interface RelayLookupTablesOptions {
  rpc: Pick<SolanaRpc, "getAccountInfo">;
  addresses: readonly string[];
  commitment: Commitment;
  log: (line: string) => void;
  /** Milliseconds since some epoch (tests move it). */
  now?: () => number;
}

/** The configured tables, read once and kept; read again when a transaction misses an address they should hold. */
export class RelayLookupTables {
  private tables: AddressLookupTableAccount[];
  private held: Set<string>;
  private lastRead: number;
  private reading: Promise<void> | null = null;
  private readonly now: () => number;

  private constructor(
    private readonly opts: RelayLookupTablesOptions,
    tables: AddressLookupTableAccount[],
  ) {
    this.now = opts.now ?? Date.now;
    this.tables = tables;
    this.held = heldBy(tables);
    this.lastRead = this.now();
  }

  /** Reads every table; throws LookupTableError naming the first that is missing or unusable. */
  static async load(opts: RelayLookupTablesOptions): Promise<RelayLookupTables> {
    const tables = await Promise.all(opts.addresses.map((a) => readLookupTable(opts.rpc, a, opts.commitment)));
    return new RelayLookupTables(opts, tables);
  }

  /** The tables as last read. */
  get accounts(): readonly AddressLookupTableAccount[] {
    return this.tables;
  }

  /** Whether the tables hold `address`. */
  holds(address: string): boolean {
    return this.held.has(address);
  }

  /** Which of `addresses` the tables do not hold. */
  missing(addresses: readonly string[]): string[] {
    return addresses.filter((a) => !this.held.has(a));
  }

  /**
   * The tables for a transaction whose fixed accounts are `expected`
   * (relayTableAddresses of its mints): read again first when they miss one of
   * them and were last read more than REFRESH_AFTER_MS ago. A table that can
   * no longer be read or used is dropped (and logged); an RPC failure keeps
   * the tables as they were. Never throws.
   */
  async forTransaction(expected: readonly string[]): Promise<AddressLookupTableAccount[]> {
    if (this.missing(expected).length > 0 && this.now() - this.lastRead >= REFRESH_AFTER_MS) {
      this.reading ??= this.refresh().finally(() => (this.reading = null));
      await this.reading;
    }
    return this.tables;
  }

  private async refresh(): Promise<void> {
    this.lastRead = this.now();
    const read = await Promise.allSettled(this.opts.addresses.map((a) => readLookupTable(this.opts.rpc, a, this.opts.commitment)));
    const tables: AddressLookupTableAccount[] = [];
    read.forEach((r, i) => {
      if (r.status === "fulfilled") tables.push(r.value);
      else if (r.reason instanceof LookupTableError) this.opts.log(`lookup table ${this.opts.addresses[i]} is no longer used: ${r.reason.message}`);
      else {
        // The RPC failed, not the table: keep what was read before.
        const before = this.tables.find((t) => t.key.toBase58() === this.opts.addresses[i]);
        if (before) tables.push(before);
      }
    });
    const added = tables.reduce((n, t) => n + t.state.addresses.length, 0) - this.tables.reduce((n, t) => n + t.state.addresses.length, 0);
    if (added !== 0) this.opts.log(`lookup tables read again: ${added > 0 ? `${added} more addresses` : `${-added} fewer addresses`}`);
    this.tables = tables;
    this.held = heldBy(tables);
  }
}

function heldBy(tables: readonly AddressLookupTableAccount[]): Set<string> {
  return new Set(tables.flatMap((t) => t.state.addresses.map((a) => a.toBase58())));
}
