/**
 * For the validator's own tests: a memo instruction (the SPL Memo program
 * LiteSVM ships logs its text and fails on bytes that are not UTF-8), raw
 * JSON-RPC calls, and waiting.
 */
import { PublicKey, TransactionInstruction } from "@solana/web3.js";

export const MEMO_PROGRAM_ID = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

export function memoInstruction(text: string | Uint8Array): TransactionInstruction {
  return new TransactionInstruction({ programId: new PublicKey(MEMO_PROGRAM_ID), keys: [], data: Buffer.from(text) });
}

/** A raw JSON-RPC call (for what web3.js has no method for, or to see the exact answer). */
export async function rpc(url: string, method: string, params: unknown = [], init: RequestInit = {}): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: "1", method, params }),
    ...init,
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (an HTTP error page)
  }
  return { status: res.status, body, text };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function until<T>(
  what: string,
  f: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 5000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
