/**
 * Test-only programs for the validator's own tests (not the real ones in
 * src-localnet/programs): a minimal system transfer and a tiny program whose
 * instructions log, fail, wait, and write, so the ledger and RPC can be tested
 * on their own.
 */
import { Keypair, PublicKey, TransactionInstruction } from "@solana/web3.js";
import { ProgramError, type Program } from "../runtime/types";

export const SYSTEM_ID = "11111111111111111111111111111111";

/** Transfer only (u32 tag 2, u64 lamports), enough for SystemProgram.transfer and airdrops. */
export const minimalSystemProgram: Program = {
  id: SYSTEM_ID,
  baseUnits: 150,
  execute(ix, ctx) {
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data.length !== 12 || view.getUint32(0, true) !== 2) throw new ProgramError("InvalidInstructionData", "transfer only");
    const lamports = view.getBigUint64(4, true);
    const [from, to] = ix.accounts;
    if (!from || !to) throw new ProgramError("NotEnoughAccountKeys", "two accounts");
    if (!from.isSigner) throw new ProgramError("MissingRequiredSignature", "from must sign");
    const f = ctx.accounts.get(from.address);
    if (!f || f.lamports < lamports) {
      ctx.log(`Program log: Transfer: insufficient lamports ${f?.lamports ?? 0n}, need ${lamports}`);
      throw new ProgramError({ Custom: 1 }, "insufficient lamports");
    }
    ctx.accounts.set(from.address, { ...f, lamports: f.lamports - lamports });
    const t = ctx.accounts.get(to.address) ?? { lamports: 0n, owner: SYSTEM_ID, data: new Uint8Array(0), executable: false };
    ctx.accounts.set(to.address, { ...t, lamports: t.lamports + lamports });
  },
};

export const TEST_PROGRAM_ID = Keypair.generate().publicKey.toBase58();

/**
 * data[0]: 0 log and succeed (1234 units) · 1 fail with custom error 6002 ·
 * 2 wait 30 ms then succeed · 3 write data[1..] into accounts[0] (created,
 * owned by this program, rent paid by accounts[1]) · 4 burn all units.
 */
export const testProgram: Program = {
  id: TEST_PROGRAM_ID,
  baseUnits: 1000,
  async execute(ix, ctx) {
    switch (ix.data[0]) {
      case 0:
        ctx.log("Program log: hello from the test program");
        ctx.log(`Program data: ${Buffer.from("event").toString("base64")}`);
        ctx.consumeUnits(1234);
        return;
      case 1:
        ctx.log("Program log: Error: NullifierSpent");
        throw new ProgramError({ Custom: 6002 }, "NullifierSpent");
      case 2:
        await new Promise((r) => setTimeout(r, 30));
        return;
      case 3: {
        const [target, payer] = ix.accounts;
        const data = ix.data.slice(1);
        const existing = ctx.accounts.get(target!.address);
        if (existing) {
          ctx.accounts.set(target!.address, { ...existing, data });
          return;
        }
        const rent = ctx.rentExempt(data.length);
        const p = ctx.accounts.get(payer!.address)!;
        ctx.accounts.set(payer!.address, { ...p, lamports: p.lamports - rent });
        ctx.accounts.set(target!.address, { lamports: rent, owner: TEST_PROGRAM_ID, data, executable: false });
        return;
      }
      case 4:
        for (;;) ctx.consumeUnits(10_000);
      default:
        throw new ProgramError("InvalidInstructionData", "unknown instruction");
    }
  },
};

export function testInstruction(kind: number, keys: { pubkey: PublicKey; isSigner: boolean; isWritable: boolean }[] = [], extra: number[] = []): TransactionInstruction {
  return new TransactionInstruction({ programId: new PublicKey(TEST_PROGRAM_ID), keys, data: Buffer.from([kind, ...extra]) });
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

export async function until<T>(what: string, f: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 5000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
