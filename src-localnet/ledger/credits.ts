/**
 * Test credits written straight into the accounts, without a transaction: an
 * SPL token mint, and tokens credited to an owner's associated token account.
 */
import { PublicKey } from "@solana/web3.js";
import {
  associatedTokenAddress,
  encodeTokenAccount,
  NATIVE_MINT,
  TOKEN_ACCOUNT_OFFSETS,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM_ID,
} from "../../src-shared/pool-program";
import type { AccountState, LedgerEngine } from "./engine";
import { decodeMint, encodeMint, MINT_SIZE, readTokenAccount } from "./token";

/** What the credits need of the ledger. */
export interface CreditedLedger {
  readonly engine: LedgerEngine;
  /** Writes an account and announces the change. */
  setAccount(address: string, account: AccountState | null): void;
  /** Announces accounts written through the engine. */
  announce(addresses: string[]): void;
  rentExempt(size: number): bigint;
  decimalsOf(mint: string): number;
}

/**
 * Creates an SPL token mint (no mint authority, no supply) at `mint`, or
 * leaves an existing mint as it is. Returns its decimals.
 */
export function createMint(ledger: CreditedLedger, mint: string, decimals: number): number {
  const existing = ledger.engine.getAccount(mint);
  if (existing) {
    const m = existing.owner === TOKEN_PROGRAM_ID ? decodeMint(existing.data) : null;
    if (!m) throw new Error(`${mint} exists and is not an SPL token mint`);
    return m.decimals;
  }
  ledger.setAccount(mint, {
    lamports: ledger.rentExempt(MINT_SIZE),
    owner: TOKEN_PROGRAM_ID,
    data: encodeMint({ mintAuthority: null, supply: 0n, decimals, freezeAuthority: null }),
    executable: false,
  });
  return decimals;
}

/**
 * Credits `amount` tokens of `mint` to the associated token account of
 * `owner`, creating the mint (default decimals) and the token account
 * (165-byte layout, rent-exempt) when missing. Wrapped SOL is credited as
 * the token program keeps it: a native account whose lamports are its rent
 * plus its amount. Returns the token account.
 */
export function mintTo(ledger: CreditedLedger, owner: string, mint: string, amount: bigint): string {
  if (amount < 0n) throw new RangeError("amount must not be negative");
  const ownerKey = new PublicKey(owner);
  const mintKey = new PublicKey(mint);
  const ata = associatedTokenAddress(ownerKey.toBase58(), mintKey.toBase58());
  const native = mint === NATIVE_MINT;
  const rent = ledger.rentExempt(TOKEN_ACCOUNT_SIZE);
  const existing = ledger.engine.getAccount(ata);
  const info = existing ? readTokenAccount(existing) : null;
  if (existing && (!info || info.mint !== mint || info.owner !== owner)) throw new Error(`${ata} exists and is not ${owner}'s token account for ${mint}`);
  createMint(ledger, mint, ledger.decimalsOf(mint));
  if (!native && amount > 0n) {
    const m = ledger.engine.getAccount(mint)!;
    const data = decodeMint(m.data)!;
    ledger.engine.setAccount(mint, { ...m, data: encodeMint({ ...data, supply: data.supply + amount }) });
  }
  let account: AccountState;
  if (existing && info) {
    const data = existing.data.slice();
    new DataView(data.buffer).setBigUint64(TOKEN_ACCOUNT_OFFSETS.amount, info.amount + amount, true);
    account = { ...existing, data, lamports: existing.lamports + (native ? amount : 0n) };
  } else {
    const data = encodeTokenAccount({ mint: mintKey.toBytes(), owner: ownerKey.toBytes(), amount });
    if (native) {
      // isNative: COption<u64> Some(rent-exempt reserve).
      const view = new DataView(data.buffer);
      view.setUint32(TOKEN_ACCOUNT_OFFSETS.isNative, 1, true);
      view.setBigUint64(TOKEN_ACCOUNT_OFFSETS.isNative + 4, rent, true);
    }
    account = { lamports: rent + (native ? amount : 0n), owner: TOKEN_PROGRAM_ID, data, executable: false };
  }
  ledger.engine.setAccount(ata, account);
  ledger.announce([mint, ata]);
  return ata;
}
