import { randomBytes } from "node:crypto";
import { sandboxDepositMessage } from "../../src-shared/messages";
import type { Network } from "../../src-shared/networks";
import { post } from "./wallet";
import type { TestWallet } from "./wallet";

export const WSOL = "So11111111111111111111111111111111111111112";
export const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

/** A random commitment below the field modulus (top byte < 0x30 keeps it there). */
export function randomCommitment(): number[] {
  const b = randomBytes(32);
  b[0] = b[0]! % 0x30;
  return Array.from(b);
}

export async function airdrop(url: string, wallet: TestWallet, amount: number, mint = WSOL, network: Network = "mainnet"): Promise<void> {
  const r = await post(`${url}/sandbox/airdrop`, { network, wallet: wallet.address, mint, amount });
  if (r.status !== 200) throw new Error(`airdrop failed: ${r.text}`);
}

export function depositBody(wallet: Pick<TestWallet, "address" | "sign">, commitment: number[], amount: number, mint = WSOL, network: Network = "mainnet"): Record<string, unknown> {
  const message = sandboxDepositMessage(network, mint, amount, Uint8Array.from(commitment));
  return { network, mint, amount, commitment, wallet: wallet.address, signature: wallet.sign(message) };
}

export async function deposit(
  url: string,
  wallet: Pick<TestWallet, "address" | "sign">,
  commitment: number[],
  amount: number,
  mint = WSOL,
  network: Network = "mainnet",
): Promise<{ signature: string; status: string; leafIndex: number | null }> {
  const r = await post(`${url}/sandbox/deposit`, depositBody(wallet, commitment, amount, mint, network));
  if (r.status !== 200) throw new Error(`deposit failed: ${r.status} ${r.text}`);
  return r.json as { signature: string; status: string; leafIndex: number | null };
}
