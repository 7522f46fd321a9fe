import type { SandboxDepositWire } from "../../src-shared/api/public";
import { randomBytes } from "node:crypto";
import { sandboxDepositMessage } from "../../src-shared/messages";
import type { Network } from "../../src-shared/networks";
import { post } from "./wallet";
import type { TestWallet } from "./wallet";

export const WSOL = "So11111111111111111111111111111111111111112";
export const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

/** 32 random bytes below the field modulus (top byte < 0x30 keeps it there), as a JSON byte array. */
export function randomFieldBytes(): number[] {
  const b = randomBytes(32);
  b[0] = b[0]! % 0x30;
  return Array.from(b);
}

/**
 * A random precommitment (protocol v2): any nonzero field element makes a
 * deposit the pool can insert. A test that needs to withdraw uses a real note
 * (tests/support/proofs.ts); this is for deposits only.
 */
export const randomPrecommitment = randomFieldBytes;

/** @deprecated v1 name: a random field element; deposits take {@link randomPrecommitment}. */
export const randomCommitment = randomFieldBytes;

/** POST /sandbox/deposit's answer: `commitment` is the leaf the pool computed, or null. */
/** POST /sandbox/deposit's answer as the wire carries it (its contract is in src-shared/api/public.ts). */
export type SandboxDepositAnswer = SandboxDepositWire;

export async function airdrop(url: string, wallet: TestWallet, amount: number, mint = WSOL, network: Network = "mainnet"): Promise<void> {
  const r = await post(`${url}/sandbox/airdrop`, { network, wallet: wallet.address, mint, amount });
  if (r.status !== 200) throw new Error(`airdrop failed: ${r.text}`);
}

/** The body of POST /sandbox/deposit, signed by the wallet over `Deposit: <network> <mint> <amount> <precommitment hex>`. */
export function depositBody(
  wallet: Pick<TestWallet, "address" | "sign">,
  precommitment: number[],
  amount: number,
  mint = WSOL,
  network: Network = "mainnet",
): Record<string, unknown> {
  const message = sandboxDepositMessage(network, mint, amount, Uint8Array.from(precommitment));
  return { network, mint, amount, precommitment, wallet: wallet.address, signature: wallet.sign(message) };
}

export async function deposit(
  url: string,
  wallet: Pick<TestWallet, "address" | "sign">,
  precommitment: number[],
  amount: number,
  mint = WSOL,
  network: Network = "mainnet",
): Promise<SandboxDepositAnswer> {
  const r = await post(`${url}/sandbox/deposit`, depositBody(wallet, precommitment, amount, mint, network));
  if (r.status !== 200) throw new Error(`deposit failed: ${r.status} ${r.text}`);
  return r.json as SandboxDepositAnswer;
}
