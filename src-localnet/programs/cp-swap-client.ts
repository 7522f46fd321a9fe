/**
 * The constant-product AMM (Uniswap-v2 formula, 0.3% fee to the pool) from the client's side: the local
 * validator's swap venue is the SBF program programs/cp-swap (cp-swap.so, run
 * by LiteSVM at CP_SWAP_PROGRAM_ID); this module holds its addresses, account
 * layout and instruction, and makes pools with setAccount. The local
 * Jupiter-compatible API (src-localnet/rpc/jupiter.ts) routes through it, so
 * relay_swap on a `solana` network runs for real on the local validator.
 *
 * One pool per unordered mint pair: a state account at the program's PDA
 * ["cp_pool", mintA, mintB] (mints sorted by their bytes) holding
 * "cpswap01" · mintA · mintB · bump, and two vaults, the pool PDA's
 * associated token accounts for mintA and mintB. The reserves are the
 * vaults' balances.
 *
 * `swap { amountIn: u64, minAmountOut: u64 }` (data: tag 0x01, then the two
 * u64 LE). Accounts: pool (w), pool's vault of the input mint (w), pool's
 * vault of the output mint (w), user (s), user's source token account (w),
 * destination token account (w, any owner), token program. Pays
 * floor(amountIn·997·rOut / (rIn·1000 + amountIn·997)) from the output vault
 * (the pool PDA signs) after taking amountIn from the user; fails with
 * `{ Custom: 6001 }` SlippageToleranceExceeded (Jupiter's code for the same
 * thing) when that is below minAmountOut. Logs `Program log: swap <in>
 * <inputMint> -> <out> <outputMint>`.
 *
 * Pools are made by the validator (LocalValidator.createSwapPool, RPC
 * localnet_createSwapPool), not by an instruction. The TypeScript model of the
 * program is a test oracle (tests/oracle/localnet/cp-swap.ts).
 */
import { PublicKey, TransactionInstruction } from "@solana/web3.js";
import { Buffer } from "buffer";
import { bytesEqual } from "../../src-shared/encoding/bytes";
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_ACCOUNT_OFFSETS,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  decodeTokenAccount,
  publicKeyBytes,
} from "../../src-shared/pool-program";

/** Tests build lookup tables with encodeLookupTable below and give them this owner. */
export { ADDRESS_LOOKUP_TABLE_PROGRAM_ID };

export const CP_SWAP_PROGRAM_ID = "CpSwap11111111111111111111111111111111111111";
/** The route label the local Jupiter API reports. */
export const CP_SWAP_LABEL = "localnet-cp";
export const CP_POOL_SIZE = 8 + 32 + 32 + 1;
const MAGIC = new TextEncoder().encode("cpswap01");
export const CP_SWAP_TAG = 1;

export const CP_SWAP_ERRORS = {
  EmptyReserve: { code: 6000, log: "Error: EmptyReserve" },
  SlippageToleranceExceeded: { code: 6001, log: "Error: SlippageToleranceExceeded" },
  InvalidPool: { code: 6002, log: "Error: InvalidPool" },
  InvalidTokenAccount: { code: 6003, log: "Error: InvalidTokenAccount" },
  ZeroAmount: { code: 6004, log: "Error: ZeroAmount" },
} as const;

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** The pair's mints in the pool's order (by their bytes). */
export function sortMints(x: string, y: string): [string, string] {
  return compareBytes(publicKeyBytes(x), publicKeyBytes(y)) <= 0 ? [x, y] : [y, x];
}

/** The pool of a pair: PDA ["cp_pool", mintA, mintB] with the mints sorted, and its bump. */
export function findCpPoolAddress(x: string, y: string, programId: string = CP_SWAP_PROGRAM_ID): [string, number] {
  const [a, b] = sortMints(x, y);
  const [k, bump] = PublicKey.findProgramAddressSync([new TextEncoder().encode("cp_pool"), publicKeyBytes(a), publicKeyBytes(b)], new PublicKey(programId));
  return [k.toBase58(), bump];
}

/**
 * The pool's address lookup table (as Jupiter's routes come with theirs): at
 * the program's PDA ["cp_alt", pool], frozen (no authority), holding the
 * pool, its two vaults, the two mints, and the token, system and associated
 * token programs.
 */
export function cpLookupTableAddress(pool: string, programId: string = CP_SWAP_PROGRAM_ID): string {
  return PublicKey.findProgramAddressSync([new TextEncoder().encode("cp_alt"), publicKeyBytes(pool)], new PublicKey(programId))[0].toBase58();
}

/**
 * An address lookup table account's data: 56 bytes of metadata (type 1, never
 * deactivated, last extended at slot 0 with every address already there, no
 * authority), then the addresses. The runtime resolves all of them from slot 0 on.
 */
export function encodeLookupTable(addresses: readonly string[]): Uint8Array {
  if (addresses.length > 256) throw new RangeError("a lookup table holds at most 256 addresses");
  const out = new Uint8Array(56 + 32 * addresses.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, 1, true);
  v.setBigUint64(4, (1n << 64n) - 1n, true);
  // last_extended_slot 0 (offset 12); last_extended_slot_start_index (offset 20): addresses before it are active even at slot 0.
  out[20] = Math.min(addresses.length, 255);
  addresses.forEach((a, i) => out.set(publicKeyBytes(a), 56 + 32 * i));
  return out;
}

/** A pool's vault for one of its mints: the pool PDA's associated token account. */
export function cpVaultAddress(pool: string, mint: string): string {
  return associatedTokenAddress(pool, mint);
}

export function encodeCpPool(mintA: string, mintB: string, bump: number): Uint8Array {
  const out = new Uint8Array(CP_POOL_SIZE);
  out.set(MAGIC, 0);
  out.set(publicKeyBytes(mintA), 8);
  out.set(publicKeyBytes(mintB), 40);
  out[72] = bump;
  return out;
}

export function decodeCpPool(data: Uint8Array): { mintA: string; mintB: string; bump: number } | null {
  if (data.length !== CP_POOL_SIZE || !bytesEqual(data.subarray(0, 8), MAGIC)) return null;
  return { mintA: new PublicKey(data.subarray(8, 40)).toBase58(), mintB: new PublicKey(data.subarray(40, 72)).toBase58(), bump: data[72]! };
}

/** The swap instruction for `user`, paying out to `destination` (default: the user's associated token account of the output mint). */
export function cpSwapInstruction(p: {
  user: string;
  inputMint: string;
  outputMint: string;
  amountIn: bigint;
  minAmountOut: bigint;
  source?: string;
  destination?: string;
  programId?: string;
}): TransactionInstruction {
  const programId = p.programId ?? CP_SWAP_PROGRAM_ID;
  const [pool] = findCpPoolAddress(p.inputMint, p.outputMint, programId);
  const data = Buffer.alloc(17);
  data[0] = CP_SWAP_TAG;
  data.writeBigUInt64LE(p.amountIn, 1);
  data.writeBigUInt64LE(p.minAmountOut, 9);
  const key = (s: string) => new PublicKey(s);
  return new TransactionInstruction({
    programId: key(programId),
    keys: [
      { pubkey: key(pool), isSigner: false, isWritable: true },
      { pubkey: key(cpVaultAddress(pool, p.inputMint)), isSigner: false, isWritable: true },
      { pubkey: key(cpVaultAddress(pool, p.outputMint)), isSigner: false, isWritable: true },
      { pubkey: key(p.user), isSigner: true, isWritable: false },
      { pubkey: key(p.source ?? associatedTokenAddress(p.user, p.inputMint)), isSigner: false, isWritable: true },
      { pubkey: key(p.destination ?? associatedTokenAddress(p.user, p.outputMint)), isSigner: false, isWritable: true },
      { pubkey: key(TOKEN_PROGRAM_ID), isSigner: false, isWritable: false },
    ],
    data,
  });
}

/** What making a pool needs of the ledger. */
export interface CpPoolLedger {
  getAccount(address: string): { lamports: bigint; owner: string; data: Uint8Array; executable: boolean } | null;
  setAccount(address: string, account: { lamports: bigint; owner: string; data: Uint8Array; executable: boolean } | null): void;
  mintTo(owner: string, mint: string, amount: bigint): string;
  rentExempt(size: number): bigint;
}

export interface CpPoolInfo {
  pool: string;
  /** The pool's address lookup table (cpLookupTableAddress). */
  lookupTable: string;
  mintA: string;
  mintB: string;
  vaultA: string;
  vaultB: string;
  reserveA: bigint;
  reserveB: bigint;
}

/**
 * Creates the pool of a pair with these reserves, or sets an existing pool's
 * reserves to them (tests move a pool this way). Reserves are given per mint
 * as passed; the result names them in the pool's sorted order.
 */
export function createCpPool(
  ledger: CpPoolLedger,
  x: string,
  y: string,
  reserveX: bigint,
  reserveY: bigint,
  programId: string = CP_SWAP_PROGRAM_ID,
): CpPoolInfo {
  if (x === y) throw new RangeError("a pool needs two different mints");
  if (reserveX <= 0n || reserveY <= 0n) throw new RangeError("reserves must be positive");
  const [pool, bump] = findCpPoolAddress(x, y, programId);
  const [mintA, mintB] = sortMints(x, y);
  ledger.setAccount(pool, { lamports: ledger.rentExempt(CP_POOL_SIZE), owner: programId, data: encodeCpPool(mintA, mintB, bump), executable: false });
  for (const [mint, amount] of [
    [x, reserveX],
    [y, reserveY],
  ] as const) {
    const vault = cpVaultAddress(pool, mint);
    const existing = ledger.getAccount(vault);
    if (!existing) {
      ledger.mintTo(pool, mint, amount);
      continue;
    }
    const data = existing.data.slice();
    new DataView(data.buffer).setBigUint64(TOKEN_ACCOUNT_OFFSETS.amount, amount, true);
    ledger.setAccount(vault, { ...existing, data });
  }
  const table = encodeLookupTable([
    pool,
    cpVaultAddress(pool, mintA),
    cpVaultAddress(pool, mintB),
    mintA,
    mintB,
    TOKEN_PROGRAM_ID,
    SYSTEM_PROGRAM_ID,
    ASSOCIATED_TOKEN_PROGRAM_ID,
  ]);
  ledger.setAccount(cpLookupTableAddress(pool, programId), {
    lamports: ledger.rentExempt(table.length),
    owner: ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
    data: table,
    executable: false,
  });
  return readCpPool(ledger, x, y, programId)!;
}

/** A pair's pool and reserves, or null when there is none. */
export function readCpPool(ledger: Pick<CpPoolLedger, "getAccount">, x: string, y: string, programId: string = CP_SWAP_PROGRAM_ID): CpPoolInfo | null {
  const [pool] = findCpPoolAddress(x, y, programId);
  const raw = ledger.getAccount(pool);
  const state = raw && raw.owner === programId ? decodeCpPool(raw.data) : null;
  if (!state) return null;
  const balance = (mint: string): bigint => {
    const a = ledger.getAccount(cpVaultAddress(pool, mint));
    if (!a || a.owner !== TOKEN_PROGRAM_ID) return 0n;
    const t = decodeTokenAccount(a.data);
    return t.ok ? t.value.amount : 0n;
  };
  return {
    pool,
    lookupTable: cpLookupTableAddress(pool, programId),
    mintA: state.mintA,
    mintB: state.mintB,
    vaultA: cpVaultAddress(pool, state.mintA),
    vaultB: cpVaultAddress(pool, state.mintB),
    reserveA: balance(state.mintA),
    reserveB: balance(state.mintB),
  };
}
