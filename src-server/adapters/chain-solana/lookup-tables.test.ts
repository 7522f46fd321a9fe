/** The relay's lookup tables: what they hold, the start checks, and the re-read when a transaction misses an address. */
import { AddressLookupTableProgram, Keypair, PublicKey, type AccountInfo } from "@solana/web3.js";
import { Buffer } from "buffer";
import { describe, expect, it } from "vitest";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  DEFAULT_POOL_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  SYSVAR_INSTRUCTIONS_ID,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  eventAuthorityAddress,
  poolTreeAddress,
  poolVaultAddress,
} from "../../../src-shared/pool-program";
import { LookupTableError, relayTableAddresses } from "../../../src-shared/solana/lookup-tables";
import { RelayLookupTables } from "./lookup-tables";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const WSOL = "So11111111111111111111111111111111111111112";
const RELAYER = Keypair.generate().publicKey.toBase58();
const U64_MAX = (1n << 64n) - 1n;

/** A lookup table account's bytes (the program's layout: type 1, deactivation slot, last extended slot and index, authority, addresses). */
function tableData(addresses: string[], deactivationSlot = U64_MAX): Buffer {
  const b = Buffer.alloc(56 + 32 * addresses.length);
  b.writeUInt32LE(1, 0);
  b.writeBigUInt64LE(deactivationSlot, 4);
  b.writeBigUInt64LE(5n, 12);
  b[20] = 0;
  b[21] = 1;
  Buffer.from(new PublicKey(RELAYER).toBytes()).copy(b, 22);
  addresses.forEach((a, i) => Buffer.from(new PublicKey(a).toBytes()).copy(b, 56 + 32 * i));
  return b;
}

function fakeRpc(accounts: Map<string, { owner: string; data: Buffer }>) {
  let reads = 0;
  return {
    get reads() {
      return reads;
    },
    getAccountInfo: async (key: PublicKey): Promise<AccountInfo<Buffer> | null> => {
      reads++;
      const a = accounts.get(key.toBase58());
      return a ? { owner: new PublicKey(a.owner), data: a.data, lamports: 1, executable: false, rentEpoch: 0 } : null;
    },
  };
}

const ALT = AddressLookupTableProgram.programId.toBase58();

describe("relayTableAddresses", () => {
  it("lists per pool mint the mint, tree, vault and the relayer's token account, then the event authority, the Instructions sysvar and the System, SPL Token and Associated Token programs, each once", () => {
    const p = DEFAULT_POOL_PROGRAM_ID;
    expect(relayTableAddresses(p, [USDC, WSOL, USDC], RELAYER)).toEqual([
      USDC,
      poolTreeAddress(p, USDC),
      poolVaultAddress(p, USDC),
      associatedTokenAddress(RELAYER, USDC),
      WSOL,
      poolTreeAddress(p, WSOL),
      poolVaultAddress(p, WSOL),
      associatedTokenAddress(RELAYER, WSOL),
      eventAuthorityAddress(p),
      SYSVAR_INSTRUCTIONS_ID,
      SYSTEM_PROGRAM_ID,
      TOKEN_PROGRAM_ID,
      ASSOCIATED_TOKEN_PROGRAM_ID,
    ]);
  });
});

describe("RelayLookupTables", () => {
  const table = Keypair.generate().publicKey.toBase58();
  const log = () => {};

  it("refuses to load a table that does not exist, is not owned by the lookup-table program, or was deactivated, naming it", async () => {
    const other = Keypair.generate().publicKey.toBase58();
    const cases: [Map<string, { owner: string; data: Buffer }>, string][] = [
      [new Map(), `lookup table ${table} does not exist`],
      [
        new Map([[table, { owner: SYSTEM_PROGRAM_ID, data: tableData([other]) }]]),
        `account ${table} is not an address lookup table (owned by ${SYSTEM_PROGRAM_ID}`,
      ],
      [new Map([[table, { owner: ALT, data: tableData([other], 77n) }]]), `lookup table ${table} was deactivated in slot 77`],
      [new Map([[table, { owner: ALT, data: Buffer.alloc(10) }]]), `lookup table ${table} does not decode`],
    ];
    for (const [accounts, message] of cases) {
      const e = await RelayLookupTables.load({ rpc: fakeRpc(accounts), addresses: [table], commitment: "confirmed", log }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(LookupTableError);
      expect((e as LookupTableError).table).toBe(table);
      expect((e as Error).message).toContain(message);
    }
  });

  it("reads the tables once, and again only when a transaction misses an address they should hold, at most every 30 s", async () => {
    const first = relayTableAddresses(DEFAULT_POOL_PROGRAM_ID, [USDC], RELAYER);
    const both = relayTableAddresses(DEFAULT_POOL_PROGRAM_ID, [USDC, WSOL], RELAYER);
    const accounts = new Map([[table, { owner: ALT, data: tableData(first) }]]);
    const rpc = fakeRpc(accounts);
    let now = 0;
    const lines: string[] = [];
    const t = await RelayLookupTables.load({ rpc, addresses: [table], commitment: "confirmed", log: (l) => lines.push(l), now: () => now });
    expect(rpc.reads).toBe(1);
    expect((await t.forTransaction(first))[0]!.state.addresses).toHaveLength(first.length);
    now = 60_000;
    expect(rpc.reads).toBe(1);
    // The operator extends the table for the wSOL pool while the relay runs: the first wSOL transaction reads it again.
    accounts.set(table, { owner: ALT, data: tableData([...first, ...both.filter((a) => !first.includes(a))]) });
    expect(t.missing(both)).toHaveLength(4);
    await t.forTransaction(both);
    expect(rpc.reads).toBe(2);
    expect(t.missing(both)).toEqual([]);
    expect(lines).toEqual(["lookup tables read again: 4 more addresses"]);
    // A mint the table never gets: read again after 30 s, not per transaction.
    const other = relayTableAddresses(DEFAULT_POOL_PROGRAM_ID, [Keypair.generate().publicKey.toBase58()], RELAYER);
    await t.forTransaction(other);
    await t.forTransaction(other);
    expect(rpc.reads).toBe(2);
    now += 30_000;
    await t.forTransaction(other);
    expect(rpc.reads).toBe(3);
  });

  it("drops a table that was deactivated since, and keeps one the RPC failed to read", async () => {
    const accounts = new Map([[table, { owner: ALT, data: tableData([USDC]) }]]);
    const rpc = fakeRpc(accounts);
    let now = 0;
    const lines: string[] = [];
    const t = await RelayLookupTables.load({ rpc, addresses: [table], commitment: "confirmed", log: (l) => lines.push(l), now: () => now });
    const failing = { getAccountInfo: () => Promise.reject(new Error("503")) };
    Object.assign(rpc, failing);
    now = 60_000;
    expect(await t.forTransaction([WSOL])).toHaveLength(1);
    Object.assign(rpc, { getAccountInfo: fakeRpc(new Map([[table, { owner: ALT, data: tableData([USDC], 9n) }]])).getAccountInfo });
    now = 120_000;
    expect(await t.forTransaction([WSOL])).toHaveLength(0);
    expect(lines.join("\n")).toContain(`lookup table ${table} is no longer used: lookup table ${table} was deactivated in slot 9`);
  });
});
