/**
 * The relay's own address lookup tables (`networks.<n>.solana.lookupTables`,
 * docs/solana.md "Swaps"): they hold the accounts of withdraw / withdraw_swap
 * that are the same for every withdrawal of the relay's pools, so a v0 message
 * names each in one byte instead of 32. withdraw_swap names 17 accounts and
 * carries 448 bytes of data: without such a table a relay_swap transaction
 * leaves room for a route of 12 accounts only (route-size.test.ts).
 *
 * `npm run pool:lookup-table` (scripts/solana/lookup-table.ts) creates or
 * extends a table with relayTableAddresses(); the relay reads its tables once
 * at start (a missing or unusable one stops the start, naming it), keeps them,
 * and reads them again when a transaction names an address they should hold
 * but do not (the operator extended a table for a new pool while it ran).
 */
import { AddressLookupTableAccount, AddressLookupTableProgram, PublicKey, type Commitment } from "@solana/web3.js";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  SYSVAR_INSTRUCTIONS_ID,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  eventAuthorityAddress,
  poolTreeAddress,
  poolVaultAddress,
} from "../../../src-shared/pool-program";
import type { SolanaRpc } from "./rpc";

export const ADDRESS_LOOKUP_TABLE_PROGRAM_ID = AddressLookupTableProgram.programId.toBase58();

/** A table that was never deactivated has u64::MAX as its deactivation slot. */
const ACTIVE = BigInt("18446744073709551615");

/** A table missing an address it should hold is read again at most this often: the table may simply not hold it (a pool added later). */
const REFRESH_AFTER_MS = 30_000;

/**
 * The accounts of withdraw and withdraw_swap that never change for these
 * pools and are never signers: per pool mint the mint (also a swap's output
 * mint), its tree and vault and the relayer's token account of it (where the
 * fee goes, and a swap's input); then the program's event authority, the
 * Instructions sysvar and the System, SPL Token and Associated Token
 * programs. The program ids help only where they are accounts, not top-level
 * programs: web3.js keeps an invoked program's id among the static keys
 * whatever the tables hold (a route's setup or the relayer's account creation
 * invokes SPL Token or Associated Token), and looks the others up. The pool
 * program itself is always invoked, so it is not listed. Unique, in a fixed
 * order, so a table extended for a new mint keeps its earlier indexes.
 */
export function relayTableAddresses(programId: string, mints: readonly string[], relayer: string): string[] {
  const out: string[] = [];
  for (const mint of mints) out.push(mint, poolTreeAddress(programId, mint), poolVaultAddress(programId, mint), associatedTokenAddress(relayer, mint));
  out.push(eventAuthorityAddress(programId), SYSVAR_INSTRUCTIONS_ID, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID);
  return [...new Set(out)];
}

/** Why a configured table cannot be used: the start error names it. */
export class LookupTableError extends Error {
  constructor(
    readonly table: string,
    message: string,
  ) {
    super(message);
  }
}

/** A lookup table account, checked: owned by the lookup-table program, decodable, not deactivated. */
export async function readLookupTable(rpc: Pick<SolanaRpc, "getAccountInfo">, address: string, commitment: Commitment): Promise<AddressLookupTableAccount> {
  const key = new PublicKey(address);
  const info = await rpc.getAccountInfo(key, commitment);
  if (!info) throw new LookupTableError(address, `lookup table ${address} does not exist`);
  const owner = info.owner.toBase58();
  if (owner !== ADDRESS_LOOKUP_TABLE_PROGRAM_ID)
    throw new LookupTableError(address, `account ${address} is not an address lookup table (owned by ${owner}, not ${ADDRESS_LOOKUP_TABLE_PROGRAM_ID})`);
  let state;
  try {
    state = AddressLookupTableAccount.deserialize(new Uint8Array(info.data));
  } catch (e) {
    throw new LookupTableError(address, `lookup table ${address} does not decode (${e instanceof Error ? e.message : String(e)})`);
  }
  // A deactivated table stops resolving once its cool-down ends, and can then be closed: transactions naming it would fail.
  if (state.deactivationSlot !== ACTIVE)
    throw new LookupTableError(address, `lookup table ${address} was deactivated in slot ${state.deactivationSlot}; create a new one`);
  return new AddressLookupTableAccount({ key, state });
}

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
