/**
 * The relay's own address lookup table (docs/solana.md "Swaps"): created, or
 * extended with the addresses it lacks, by its authority (the relayer), then
 * waited for until every address is usable. `npm run pool:lookup-table`
 * (lookup-table.ts) runs it for an operator; the local validator's demo and
 * the tests call it directly.
 */
import {
  AddressLookupTableProgram,
  PublicKey,
  SYSVAR_SLOT_HASHES_PUBKEY,
  Transaction,
  type Connection,
  type Keypair,
  type TransactionInstruction,
} from "@solana/web3.js";
import { Buffer } from "buffer";
import nacl from "tweetnacl";
import { readLookupTable, relayTableAddresses } from "../../src-shared/solana/lookup-tables";
import { confirmed } from "./cli";

/** Who creates, extends and pays: the relayer's key (readKeypairFile's Signer, or a Keypair wrapped). */
export interface TableSigner {
  readonly address: string;
  sign(message: Uint8Array): Uint8Array;
}

/** A web3.js Keypair as a TableSigner (the demo and the tests hold Keypairs). */
export function keypairSigner(k: Keypair): TableSigner {
  return { address: k.publicKey.toBase58(), sign: (message) => nacl.sign.detached(message, k.secretKey) };
}

export interface EnsureTableOptions {
  programId: string;
  mints: readonly string[];
  /** An existing table of the signer's to extend; absent: a new table is created. */
  table?: string;
  /** More addresses to hold after the pools' (tests pad a route with them). */
  extraAddresses?: readonly string[];
  log?: (line: string) => void;
}

export interface EnsuredTable {
  table: string;
  created: boolean;
  /** The addresses this run added, in table order. */
  added: string[];
  /** Everything the table holds now. */
  addresses: string[];
}

/** Addresses per extend instruction: 32 bytes each, so a transaction with the create stays well within a packet. */
const PER_EXTEND = 20;
const COMMITMENT = "confirmed";

/**
 * Creates the table (or takes `table`), extends it with the addresses of
 * relayTableAddresses(programId, mints, signer) it does not hold yet, in
 * order, and returns once they can be looked up: a table's addresses resolve
 * from the slot after the one that added them. Running it again adds nothing.
 */
export async function ensureRelayLookupTable(connection: Connection, signer: TableSigner, opts: EnsureTableOptions): Promise<EnsuredTable> {
  const log = opts.log ?? (() => {});
  const authority = new PublicKey(signer.address);
  const wanted = [...new Set([...relayTableAddresses(opts.programId, opts.mints, signer.address), ...(opts.extraAddresses ?? [])])];
  let held: string[] = [];
  let address = opts.table ? new PublicKey(opts.table) : null;
  let create: TransactionInstruction | null = null;
  if (!address) {
    const [ix, derived] = AddressLookupTableProgram.createLookupTable({ authority, payer: authority, recentSlot: await recentSlot(connection) });
    address = derived;
    // The address derives from (authority, slot): one there already is this signer's, from an earlier run in the same slot.
    if (!(await connection.getAccountInfo(derived, COMMITMENT))) create = ix;
  }
  const table = address;
  if (!create) {
    const existing = await readLookupTable(connection, table.toBase58(), COMMITMENT);
    const owner = existing.state.authority?.toBase58() ?? null;
    // Only the table's authority may extend it; a frozen table (no authority) never changes.
    if (owner !== signer.address)
      throw new Error(
        `lookup table ${table.toBase58()} ${owner ? `has authority ${owner}` : "is frozen (no authority)"}, not ${signer.address}: it cannot be extended with this keypair`,
      );
    held = existing.state.addresses.map((a) => a.toBase58());
  }
  const added = wanted.filter((a) => !held.includes(a));
  // The create goes with the first extension; each transaction adds at most PER_EXTEND addresses.
  const batches: { ixs: TransactionInstruction[]; count: number }[] = [];
  for (let i = 0; i < added.length; i += PER_EXTEND) {
    const chunk = added.slice(i, i + PER_EXTEND).map((a) => new PublicKey(a));
    batches.push({
      ixs: [AddressLookupTableProgram.extendLookupTable({ lookupTable: table, authority, payer: authority, addresses: chunk })],
      count: chunk.length,
    });
  }
  if (create) {
    if (batches.length === 0) batches.push({ ixs: [], count: 0 });
    batches[0]!.ixs.unshift(create);
  }
  for (const [i, b] of batches.entries()) {
    const signature = await send(connection, signer, b.ixs);
    log(`lookup table ${table.toBase58()}: ${i === 0 && create ? "created" : "extended"}${b.count > 0 ? `, +${b.count} addresses` : ""}, in ${signature}`);
  }
  const now = await readLookupTable(connection, table.toBase58(), COMMITMENT);
  if (batches.length > 0) await activated(connection, now.state.lastExtendedSlot);
  const addresses = now.state.addresses.map((a) => a.toBase58());
  const lacking = wanted.filter((a) => !addresses.includes(a));
  if (lacking.length > 0) throw new Error(`lookup table ${table.toBase58()} still lacks ${lacking.join(", ")}`);
  return { table: table.toBase58(), created: create !== null, added, addresses };
}

/**
 * A slot the lookup-table program takes for the table's address: it must be in
 * the SlotHashes sysvar, so the sysvar's newest entry (the local validator's
 * LiteSVM keeps one fixed entry there); the finalized slot when it cannot be read.
 */
async function recentSlot(connection: Connection): Promise<number> {
  const info = await connection.getAccountInfo(SYSVAR_SLOT_HASHES_PUBKEY, COMMITMENT);
  // Layout: u64 count, then (u64 slot, 32-byte hash) newest first.
  if (info && info.data.length >= 16 && info.data.readBigUInt64LE(0) > 0n) return Number(info.data.readBigUInt64LE(8));
  return connection.getSlot("finalized");
}

/** Addresses added in slot S resolve from slot S + 1 on. */
async function activated(connection: Connection, lastExtendedSlot: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await connection.getSlot(COMMITMENT)) <= lastExtendedSlot) {
    if (Date.now() > deadline) throw new Error(`the cluster did not pass slot ${lastExtendedSlot} within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function send(connection: Connection, signer: TableSigner, instructions: TransactionInstruction[]): Promise<string> {
  const payer = new PublicKey(signer.address);
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash(COMMITMENT);
  const tx = new Transaction({ feePayer: payer, blockhash, lastValidBlockHeight }).add(...instructions);
  tx.addSignature(payer, Buffer.from(signer.sign(tx.serializeMessage())));
  const signature = await connection.sendRawTransaction(tx.serialize());
  await confirmed(connection, signature, lastValidBlockHeight, 200);
  return signature;
}
