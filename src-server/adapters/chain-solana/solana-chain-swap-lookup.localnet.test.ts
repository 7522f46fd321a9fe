/**
 * The relay's own address lookup table on the local validator
 * (networks.<n>.solana.lookupTables, made by pool:lookup-table's
 * ensureRelayLookupTable): a relay_swap whose route (the local Jupiter API
 * pads the cp-swap route to 42 accounts) and the creation of the relayer's
 * input account do not fit without it lands in one transaction, where without
 * the table it is refused before anything is sent; a route of 32 accounts,
 * the maxAccounts quoted with a table (12 without it finds no such route),
 * lands too. The local cp-swap route's data is shorter than a Jupiter route's,
 * so the sizes here are smaller than route-size.test.ts's. A plain withdraw
 * uses the table too, and the indexer reads the change leaves through it. A configured table that is missing or not a lookup table
 * stops the start, named.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { associatedTokenAddress, eventAuthorityAddress, poolTreeAddress, poolVaultAddress, swapEscrowAddress } from "../../../src-shared/pool-program";
import type { LocalValidator } from "../../../src-localnet/validator";
import { ensureRelayLookupTable, keypairSigner } from "../../../scripts/solana/relay-lookup-table";
import type { SwapQuote } from "../../core/swap/quote";
import type { WithdrawalSubmission } from "../../ports/chain";
import { ROUTE_MAX_ACCOUNTS, routeMaxAccounts } from "../swap-jupiter/jupiter-api";
import { SolanaChain } from "./solana-chain";
import { FEE, MINT, OUTPUT_MINT as OUT, PROGRAM, SOL, recipientOf, recorder, startFixturePool, type FixturePool } from "../../../tests/support/localnet-pool";
import { CP_SWAP, localJupiter, swapChain } from "../../../tests/support/localnet-swap";

/** The cp-swap instruction's own accounts; the padding brings the route to the maxAccounts quoted with a table. */
const CP_SWAP_ACCOUNTS = 7;
/** Routes of the maxAccounts a relay with its table quotes, and longer ones: the cp-swap route padded (its data is shorter than Jupiter's, so 32 accounts fit without the table here). */
const ROUTE_WITH_TABLE = routeMaxAccounts(true);
/** Within the runtime's 64 accounts per transaction with withdraw_swap's own. */
const ROUTE_LONG = 42;
const PACKET = 1232;
let padAccounts: string[];
let padTable: string;
const proved = new Map<string, WithdrawalSubmission>();

let pool: FixturePool;
let validator: LocalValidator;
let relayTable: string;
const logs: string[] = [];

const jupiter = (maxAccounts: number) => localJupiter(pool, maxAccounts);

const connect = (lookupTables: string[]) =>
  swapChain(pool, { swapInstructions: jupiter(routeMaxAccounts(lookupTables.length > 0)), lookupTables, log: (l) => logs.push(l) });

const askFor = (note: number) => ({ inputMint: MINT, outputMint: OUT, amount: pool.notes[note]!.amount - FEE, slippageBps: 50, dexes: [] });

/** The case's swap proof (made once), with the quote's swap leg. */
async function submission(c: { note: number; label: string }, quote: SwapQuote): Promise<WithdrawalSubmission> {
  let w = proved.get(c.label);
  if (!w) proved.set(c.label, (w = (await pool.prove(pool.notes[c.note]!, recipientOf(c.label), { swap: { outputMint: OUT, minOut: 1n } })).submission));
  return { ...w, swap: { outputMint: OUT, quote, minOut: 1n } };
}

/** Quotes at maxAccounts, lands the swap, and checks where everything went: the recipient paid, the escrow closed, the relay's table first. */
async function swapLands(chain: SolanaChain, c: { note: number; label: string }, maxAccounts: number): Promise<{ signature: string; size: number }> {
  const q = await jupiter(maxAccounts).quote(askFor(c.note));
  if (!q.ok) throw new Error(q.error.detail);
  const w = await submission(c, q.value);
  const r = await chain.submitWithdrawal(w, recorder().observer);
  expect(r).toMatchObject({ ok: true, outAmount: q.value.outAmount });
  if (!r.ok) throw new Error(r.detail);
  const recipient = recipientOf(c.label);
  expect(await pool.balance(associatedTokenAddress(recipient, OUT))).toBe(q.value.outAmount);
  expect(await pool.rpc.getAccountInfo(new PublicKey(swapEscrowAddress(PROGRAM, MINT, w.nullifierHash)))).toBeNull();
  const tx = (await pool.rpc.getTransaction(r.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 }))!;
  // The relay's table first, then the route's two (the pool's and the padding's).
  expect(tx.transaction.message.addressTableLookups.map((l) => l.accountKey.toBase58())).toEqual([
    relayTable,
    validator.swapPool(MINT, OUT)!.lookupTable,
    padTable,
  ]);
  const statics = tx.transaction.message.staticAccountKeys.map((k) => k.toBase58());
  for (const k of [
    poolTreeAddress(PROGRAM, MINT),
    poolVaultAddress(PROGRAM, MINT),
    eventAuthorityAddress(PROGRAM),
    associatedTokenAddress(pool.relayer.address, MINT),
  ])
    expect(statics).not.toContain(k);
  const swapIx = tx.transaction.message.compiledInstructions.find((i) => statics[i.programIdIndex] === CP_SWAP)!;
  expect(swapIx.accountKeyIndexes).toHaveLength(validator.jupiter.routeAccounts);
  const size = sizeOf(r.signature);
  expect(size).toBeLessThanOrEqual(PACKET);
  return { signature: r.signature, size };
}

const sizeOf = (signature: string): number => Number(/\((\d+) bytes\)/.exec(logs.find((l) => l.includes(`withdrawal ${signature} landed`)) ?? "")?.[1]);

beforeAll(async () => {
  pool = await startFixturePool();
  validator = pool.validator;
  await validator.createSwapPool(MINT, OUT, 100n * SOL, 400_000_000_000n);
  const connection = new Connection(validator.rpcUrl, "confirmed");
  relayTable = (await ensureRelayLookupTable(connection, pool.relayer, { programId: PROGRAM, mints: [MINT, OUT] })).table;
  // The route's extra accounts sit in a table of the venue's own, as a real route's do.
  const venue = Keypair.generate();
  await validator.airdrop(venue.publicKey.toBase58(), SOL);
  padAccounts = Array.from({ length: ROUTE_LONG - CP_SWAP_ACCOUNTS }, () => Keypair.generate().publicKey.toBase58());
  padTable = (await ensureRelayLookupTable(connection, keypairSigner(venue), { programId: PROGRAM, mints: [], extraAddresses: padAccounts })).table;
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe("the relay's lookup table on the local validator", () => {
  it("refuses to start on a configured table that does not exist or is not a lookup table, naming it and the key", async () => {
    const nowhere = Keypair.generate().publicKey.toBase58();
    await expect(connect([relayTable, nowhere])).rejects.toThrow(
      `networks.devnet.solana.lookupTables: lookup table ${nowhere} does not exist on the cluster at`,
    );
    await expect(connect([pool.relayer.address])).rejects.toThrow(
      `networks.devnet.solana.lookupTables: account ${pool.relayer.address} is not an address lookup table (owned by 11111111111111111111111111111111`,
    );
  });

  it(`lands a relay_swap whose route of ${ROUTE_LONG} accounts and the creation of the relayer's input account do not fit without the table: without it the relay refuses it before sending anything`, async () => {
    validator.jupiter.padRoutes({ accounts: padAccounts, lookupTable: padTable });
    const c = { note: 3, label: "lookup table, long route" };
    // The relayer's first swap of this mint: the transaction creates its input account too (41 bytes).
    expect(await pool.rpc.getAccountInfo(new PublicKey(associatedTokenAddress(pool.relayer.address, MINT)))).toBeNull();
    const long = await jupiter(ROUTE_LONG).quote(askFor(c.note));
    if (!long.ok) throw new Error(long.error.detail);
    const w = await submission(c, long.value);
    const plain = await connect([]);
    const { attempts, observer } = recorder();
    expect(await plain.submitWithdrawal(w, observer)).toMatchObject({
      ok: false,
      rejection: "SwapFailed",
      detail: expect.stringMatching(/does not fit in one transaction: .* is 12\d\d bytes, more than a packet's 1232/),
    });
    expect(attempts).toHaveLength(0);
    expect(await plain.isNullifierSpent(MINT, w.nullifierHash)).toBe(false);
    const chain = await connect([relayTable]);
    expect(logs.join("\n")).toContain(`devnet: lookup tables ${relayTable} (`);
    const { size } = await swapLands(chain, c, ROUTE_LONG);
    expect(await pool.balance(associatedTokenAddress(pool.relayer.address, MINT))).toBe(FEE);
    console.log(`relay_swap with the relay's table, a ${ROUTE_LONG}-account route and the relayer's input account created: ${size} bytes`);
  }, 120_000);

  it(`lands a relay_swap whose route names ${ROUTE_WITH_TABLE} accounts (the maxAccounts quoted with the table; 12 without it finds no such route), its input account existing now`, async () => {
    validator.jupiter.padRoutes({ accounts: padAccounts.slice(0, ROUTE_WITH_TABLE - CP_SWAP_ACCOUNTS), lookupTable: padTable });
    const c = { note: 1, label: "lookup table, 32-account route" };
    expect(await jupiter(ROUTE_MAX_ACCOUNTS).quote(askFor(c.note))).toMatchObject({
      ok: false,
      error: { kind: "InsufficientLiquidity", code: "COULD_NOT_FIND_ANY_ROUTE" },
    });
    const chain = await connect([relayTable]);
    const { signature, size } = await swapLands(chain, c, routeMaxAccounts(true));
    expect(await pool.balance(associatedTokenAddress(pool.relayer.address, MINT))).toBe(2n * FEE);
    console.log(`relay_swap with the relay's table, a ${ROUTE_WITH_TABLE}-account route: ${size} bytes (${signature})`);
  }, 120_000);

  it("lands a plain withdraw through the table too, and the indexer reads the three change leaves from transactions whose tree is looked up", async () => {
    const chain = await connect([relayTable]);
    const recipient = recipientOf("lookup table, plain");
    const proved = await pool.prove(pool.notes[2]!, recipient);
    const r = await chain.submitWithdrawal(proved.submission, recorder().observer);
    expect(r).toMatchObject({ ok: true, changeLeafIndex: 9 });
    if (!r.ok) return;
    const tx = (await pool.rpc.getTransaction(r.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 }))!;
    expect(tx.transaction.message.addressTableLookups.map((l) => l.accountKey.toBase58())).toEqual([relayTable]);
    expect(tx.transaction.message.staticAccountKeys.map((k) => k.toBase58())).not.toContain(poolTreeAddress(PROGRAM, MINT));
    console.log(`withdraw with the relay's table: ${sizeOf(r.signature)} bytes`);
    expect(await pool.balance(associatedTokenAddress(recipient, MINT))).toBe(pool.notes[2]!.amount - FEE);
    const leaves = await pool.leafEvents();
    expect(leaves.map((l) => l.kind)).toEqual([...Array(7).fill("deposit"), "change", "change", "change"]);
    expect(leaves[9]!.commitment).toEqual(proved.submission.changeCommitment);
  }, 120_000);
});
