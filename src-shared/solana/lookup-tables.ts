/**
 * The relay's own address lookup tables (`networks.<n>.solana.lookupTables`,
 * docs/solana.md "Swaps"): they hold the accounts of withdraw / withdraw_swap
 * that are the same for every withdrawal of the relay's pools, so a v0 message
 * names each in one byte instead of 32. withdraw_swap names 17 accounts and
 * carries 448 bytes of data: without such a table a relay_swap transaction
 * leaves room for a route of 12 accounts only
 * (src-server/adapters/swap-jupiter/route-size.test.ts).
 *
 * `npm run pool:lookup-table` (scripts/solana/lookup-table.ts) creates or
 * extends a table with relayTableAddresses(); the relay checks its tables
 * with readLookupTable at start and keeps them
 * (src-server/adapters/chain-solana/lookup-tables.ts).
 */
import { AddressLookupTableAccount, PublicKey, type Commitment } from "@solana/web3.js";
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  SYSVAR_INSTRUCTIONS_ID,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  eventAuthorityAddress,
  poolTreeAddress,
  poolVaultAddress,
} from "../pool-program";

/** The one RPC read a table check needs (a web3.js Connection, or the relay's SolanaRpc). */
export interface LookupTableRpc {
  getAccountInfo(publicKey: PublicKey, commitment?: Commitment): Promise<{ owner: PublicKey; data: Uint8Array } | null>;
}

/** A table that was never deactivated has u64::MAX as its deactivation slot. */
const ACTIVE = BigInt("18446744073709551615");

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
export async function readLookupTable(rpc: LookupTableRpc, address: string, commitment: Commitment): Promise<AddressLookupTableAccount> {
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
