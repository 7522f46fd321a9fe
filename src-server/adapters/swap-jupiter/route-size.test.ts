/**
 * How many route accounts fit a relay_swap transaction (issue 25: withdraw_swap
 * names the event authority and the program too): withdraw_swap, the route's
 * swap instruction, assert_swap_out, the engine's two compute-budget
 * instructions and, when the relayer has no input token account yet, its
 * creation, compiled v0 with the route's accounts in two lookup tables, as
 * swap-submit.ts sends it. ROUTE_MAX_ACCOUNTS must keep that within a packet,
 * and ROUTE_MAX_ACCOUNTS_WITH_TABLE too when the relay's own lookup table
 * (pool:lookup-table) holds the pools' fixed accounts.
 */
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type MessageV0,
} from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  DEFAULT_POOL_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  SYSVAR_INSTRUCTIONS_ID,
  associatedTokenAddress,
  assertSwapOutInstruction,
  eventAuthorityAddress,
  poolTreeAddress,
  poolVaultAddress,
  swapEscrowAddress,
  withdrawSwapInstruction,
} from "../../../src-shared/pool-program";
import { relayTableAddresses } from "../../../src-shared/solana/lookup-tables";
import { ROUTE_MAX_ACCOUNTS, ROUTE_MAX_ACCOUNTS_WITH_TABLE, routeMaxAccounts } from "./jupiter-api";

const PACKET = 1232;
const JUPITER = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const OUT = "So11111111111111111111111111111111111111112";
/** Jupiter's route instruction data: a route plan of one or two hops, amounts and slippage (~30 bytes for one hop). */
const ROUTE_DATA_BYTES = 40;

/** The relay's own table (pool:lookup-table) holding the pools' fixed accounts, or none. */
type Options = { relayerAtaMissing: boolean; relayTable: boolean; routeDataBytes?: number };

function compile(routeAccounts: number, o: Options): MessageV0 {
  const relayer = Keypair.generate();
  const r = relayer.publicKey.toBase58();
  const recipient = Keypair.generate().publicKey.toBase58();
  const nullifierHash = new Uint8Array(32).fill(7);
  const escrow = swapEscrowAddress(DEFAULT_POOL_PROGRAM_ID, MINT, nullifierHash);
  const relayerAta = associatedTokenAddress(r, MINT);
  // The route's own accounts: those the transaction names anyway (the relayer signing, its input account, the escrow it
  // pays into, the token program, both mints) and the venue's pools, vaults and authorities, which its tables hold.
  const shared = [r, relayerAta, escrow, TOKEN_PROGRAM_ID, MINT, OUT];
  const venue = Array.from({ length: Math.max(0, routeAccounts - shared.length) }, () => Keypair.generate().publicKey);
  const routeKeys = [...shared.map((k) => new PublicKey(k)), ...venue].slice(0, routeAccounts);
  // Jupiter's tables hold the venue's accounts and the common ones (the mints, the token, system and associated token
  // programs), as the local validator's cp-swap table does: a key a table holds leaves the message's static keys.
  const common = [MINT, OUT, TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID].map((k) => new PublicKey(k));
  const half = Math.ceil(venue.length / 2);
  const tables = [[...common, ...venue.slice(0, half)], venue.slice(half)].map(
    (addresses, i) =>
      new AddressLookupTableAccount({
        key: Keypair.generate().publicKey,
        state: { deactivationSlot: BigInt("18446744073709551615"), lastExtendedSlot: i, lastExtendedSlotStartIndex: 0, addresses },
      }),
  );
  const instructions: TransactionInstruction[] = [
    ComputeBudgetProgram.setComputeUnitLimit({ units: 400_000 }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }),
  ];
  if (o.relayerAtaMissing) {
    instructions.push(
      new TransactionInstruction({
        programId: new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
        keys: [r, relayerAta, r, MINT, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID].map((k, i) => ({ pubkey: new PublicKey(k), isSigner: i === 0, isWritable: i < 2 })),
        data: Buffer.from([1]),
      }),
    );
  }
  instructions.push(
    withdrawSwapInstruction({
      programId: DEFAULT_POOL_PROGRAM_ID,
      relayer: r,
      mint: MINT,
      proof: new Uint8Array(256),
      root: new Uint8Array(32),
      nullifierHash,
      recipient,
      amount: 1_000_000n,
      fee: 2_500n,
      changeCommitment: new Uint8Array(32),
      outputMint: OUT,
      minOut: 1n,
      escrow,
    }),
    new TransactionInstruction({
      programId: new PublicKey(JUPITER),
      keys: routeKeys.map((pubkey, i) => ({ pubkey, isSigner: i === 0, isWritable: i !== 3 && i < 6 })),
      data: Buffer.alloc(o.routeDataBytes ?? ROUTE_DATA_BYTES),
    }),
    assertSwapOutInstruction({ programId: DEFAULT_POOL_PROGRAM_ID, relayer: r, mint: MINT, recipient, outputMint: OUT, minOut: 1n, nullifierHash, escrow }),
  );
  // The relay's table comes first, as swap-submit.ts passes it: an address both hold is looked up in it.
  const relay = new AddressLookupTableAccount({
    key: Keypair.generate().publicKey,
    state: {
      deactivationSlot: BigInt("18446744073709551615"),
      lastExtendedSlot: 0,
      lastExtendedSlotStartIndex: 0,
      addresses: relayTableAddresses(DEFAULT_POOL_PROGRAM_ID, [MINT, OUT], r).map((k) => new PublicKey(k)),
    },
  });
  return new TransactionMessage({
    payerKey: relayer.publicKey,
    recentBlockhash: Keypair.generate().publicKey.toBase58(),
    instructions,
  }).compileToV0Message(o.relayTable ? [relay, ...tables] : tables);
}

const size = (routeAccounts: number, o: Options): number => wireSize(compile(routeAccounts, o));

/** Accounts the transaction loads (static and looked up): at most 64 (the runtime's account-lock limit). */
const accountCount = (m: MessageV0): number =>
  m.staticAccountKeys.length + m.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);

/** A short-vec length's bytes. */
const shortVec = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : 3);

/**
 * A signed v0 transaction's wire size, summed field by field: web3.js's serialize() throws past a packet, and the
 * point is to see by how much. Signatures, then the message: version, header, static keys, blockhash, instructions, lookups.
 */
function wireSize(m: MessageV0): number {
  const signatures = shortVec(m.header.numRequiredSignatures) + 64 * m.header.numRequiredSignatures;
  const keys = shortVec(m.staticAccountKeys.length) + 32 * m.staticAccountKeys.length;
  const ixs = m.compiledInstructions.reduce(
    (n, ix) => n + 1 + shortVec(ix.accountKeyIndexes.length) + ix.accountKeyIndexes.length + shortVec(ix.data.length) + ix.data.length,
    shortVec(m.compiledInstructions.length),
  );
  const lookups = m.addressTableLookups.reduce(
    (n, l) => n + 32 + shortVec(l.writableIndexes.length) + l.writableIndexes.length + shortVec(l.readonlyIndexes.length) + l.readonlyIndexes.length,
    shortVec(m.addressTableLookups.length),
  );
  return signatures + 1 + 3 + keys + 32 + ixs + lookups;
}

describe("ROUTE_MAX_ACCOUNTS", () => {
  it("sums a transaction's wire size as web3.js serializes it", () => {
    const payer = Keypair.generate();
    const tables = [
      new AddressLookupTableAccount({
        key: Keypair.generate().publicKey,
        state: { deactivationSlot: 0n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [Keypair.generate().publicKey] },
      }),
    ];
    const ix = new TransactionInstruction({
      programId: new PublicKey(JUPITER),
      keys: [{ pubkey: tables[0]!.state.addresses[0]!, isSigner: false, isWritable: true }],
      data: Buffer.alloc(300),
    });
    const m = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: payer.publicKey.toBase58(),
      instructions: [ix, ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 })],
    }).compileToV0Message(tables);
    const tx = new VersionedTransaction(m);
    tx.sign([payer]);
    expect(wireSize(m)).toBe(tx.serialize().length);
  });

  it("is the most route accounts that keep withdraw_swap (with the event authority and the program) + route + assert_swap_out within a 1,232-byte packet", () => {
    const exists = { relayerAtaMissing: false, relayTable: false };
    const table = [8, 10, 12, 14, 16, 18, 20, 22, 24].map((n) => `${n}: ${size(n, exists)}/${size(n, { ...exists, relayerAtaMissing: true })}`);
    console.log(`route accounts: bytes (input account exists / created first): ${table.join(", ")}`);
    expect(size(ROUTE_MAX_ACCOUNTS, exists)).toBeLessThanOrEqual(PACKET);
    expect(size(ROUTE_MAX_ACCOUNTS + 1, exists)).toBeGreaterThan(PACKET);
    // Creating the relayer's input account in the same transaction (its first swap of a mint) costs 41 bytes more.
    expect(size(ROUTE_MAX_ACCOUNTS, { ...exists, relayerAtaMissing: true }) - size(ROUTE_MAX_ACCOUNTS, exists)).toBe(41);
    expect(size(ROUTE_MAX_ACCOUNTS, { ...exists, relayerAtaMissing: true })).toBeGreaterThan(PACKET);
  });

  it("with the relay's lookup table, ROUTE_MAX_ACCOUNTS_WITH_TABLE route accounts fit whether or not the relayer's input account is created first, even with 64 bytes of route data, within 64 accounts; without the table they do not", () => {
    const n = ROUTE_MAX_ACCOUNTS_WITH_TABLE;
    const rows = [12, 16, 20, 24, 28, 32, 36, 40, 44, 48].map(
      (k) => `${k}: ${size(k, { relayerAtaMissing: false, relayTable: true })}/${size(k, { relayerAtaMissing: true, relayTable: true })}`,
    );
    console.log(`with the relay's table, route accounts: bytes (input account exists / created first): ${rows.join(", ")}`);
    for (const relayerAtaMissing of [false, true]) {
      for (const routeDataBytes of [ROUTE_DATA_BYTES, 64]) {
        const o = { relayerAtaMissing, relayTable: true, routeDataBytes };
        expect(size(n, o), JSON.stringify(o)).toBeLessThanOrEqual(PACKET);
        expect(accountCount(compile(n, o))).toBeLessThanOrEqual(64);
      }
    }
    // Such a route without the table: over the packet.
    expect(size(n, { relayerAtaMissing: false, relayTable: false })).toBeGreaterThan(PACKET);
    expect(routeMaxAccounts(true)).toBe(n);
    expect(routeMaxAccounts(false)).toBe(ROUTE_MAX_ACCOUNTS);
  });

  it("the relay's table takes the tree, the vault, the relayer's input account, the event authority and the Instructions sysvar out of the static keys; a program invoked at top level stays static", () => {
    const m = compile(ROUTE_MAX_ACCOUNTS_WITH_TABLE, { relayerAtaMissing: true, relayTable: true });
    const statics = m.staticAccountKeys.map((k) => k.toBase58());
    for (const k of [
      poolTreeAddress(DEFAULT_POOL_PROGRAM_ID, MINT),
      poolVaultAddress(DEFAULT_POOL_PROGRAM_ID, MINT),
      eventAuthorityAddress(DEFAULT_POOL_PROGRAM_ID),
      SYSVAR_INSTRUCTIONS_ID,
    ])
      expect(statics).not.toContain(k);
    // The relayer's account creation invokes the Associated Token program: web3.js keeps it static rather than refuse the table.
    expect(statics).toContain(ASSOCIATED_TOKEN_PROGRAM_ID);
    expect(statics).toContain(DEFAULT_POOL_PROGRAM_ID);
  });
});
