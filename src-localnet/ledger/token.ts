/**
 * SPL Token facts the ledger and RPC need without running the token program:
 * the mint layout (82 bytes), reading token accounts (the 165-byte layout of
 * src-shared/pool-program), decimals and UI amounts.
 */
import { PublicKey } from "@solana/web3.js";
import { decodeTokenAccount, NATIVE_MINT, TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM_ID } from "../../src-shared/pool-program";
import type { AccountState } from "./account";

export const MINT_SIZE = 82;

export interface MintData {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  freezeAuthority: string | null;
}

export function encodeMint(m: MintData): Uint8Array {
  const out = new Uint8Array(MINT_SIZE);
  const view = new DataView(out.buffer);
  if (m.mintAuthority) {
    view.setUint32(0, 1, true);
    out.set(new PublicKey(m.mintAuthority).toBytes(), 4);
  }
  view.setBigUint64(36, m.supply, true);
  out[44] = m.decimals;
  out[45] = 1;
  if (m.freezeAuthority) {
    view.setUint32(46, 1, true);
    out.set(new PublicKey(m.freezeAuthority).toBytes(), 50);
  }
  return out;
}

export function decodeMint(data: Uint8Array): MintData | null {
  if (data.length !== MINT_SIZE || data[45] !== 1) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    mintAuthority: view.getUint32(0, true) === 1 ? new PublicKey(data.subarray(4, 36)).toBase58() : null,
    supply: view.getBigUint64(36, true),
    decimals: data[44]!,
    freezeAuthority: view.getUint32(46, true) === 1 ? new PublicKey(data.subarray(50, 82)).toBase58() : null,
  };
}

export interface TokenAccountInfo {
  mint: string;
  owner: string;
  amount: bigint;
}

/** An initialized SPL token account's mint, owner and amount; null for anything else. */
export function readTokenAccount(account: AccountState | null): TokenAccountInfo | null {
  if (!account || account.owner !== TOKEN_PROGRAM_ID || account.data.length !== TOKEN_ACCOUNT_SIZE) return null;
  const r = decodeTokenAccount(account.data);
  if (!r.ok) return null;
  return { mint: new PublicKey(r.value.mint).toBase58(), owner: new PublicKey(r.value.owner).toBase58(), amount: r.value.amount };
}

/** Decimals of a mint: from its mint account when it has one, else the configured default (9 for wrapped SOL, 6 otherwise). */
export function mintDecimals(mint: string, getAccount: (a: string) => AccountState | null, overrides: ReadonlyMap<string, number>): number {
  const acc = getAccount(mint);
  if (acc && acc.owner === TOKEN_PROGRAM_ID) {
    const m = decodeMint(acc.data);
    if (m) return m.decimals;
  }
  return overrides.get(mint) ?? (mint === NATIVE_MINT ? 9 : 6);
}

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const s = amount.toString();
  let uiAmountString: string;
  if (decimals === 0) uiAmountString = s;
  else {
    const padded = s.padStart(decimals + 1, "0");
    const int = padded.slice(0, padded.length - decimals);
    const frac = padded.slice(padded.length - decimals).replace(/0+$/, "");
    uiAmountString = frac ? `${int}.${frac}` : int;
  }
  return { amount: s, decimals, uiAmount: Number(uiAmountString), uiAmountString };
}
