/**
 * The ceremony's beacon: the blockhash of the first block at or after a Solana
 * slot announced at init. Nobody knows it when the contributions are made, and anyone can
 * read it afterwards. A skipped slot (no block) moves to the next block; finalized
 * commitment only, so the hash cannot be rolled back.
 */

/** One JSON-RPC call; the tests pass a fake. */
export type SolanaRpc = (method: string, params: unknown[]) => Promise<unknown>;

/** Solana's target slot time; a beacon announced "48h ahead" is that many slots ahead. */
export const SLOT_MS = 400;
/** How many slots getBlocks is asked for at a time while looking past skipped slots. */
const WINDOW = 1000;
const FINALIZED = { commitment: "finalized" } as const;

export function httpRpc(url: string): SolanaRpc {
  let id = 0;
  return async (method, params) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    if (!response.ok) throw new Error(`${method}: HTTP ${response.status} from the RPC`);
    const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
    return body.result;
  };
}

/** "48h", "2d", "90m", "30s" (or combined, "1d12h") in milliseconds; null when it is not a duration. */
export function parseDuration(text: string): number | null {
  const unit: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  if (!/^(\d+[smhd])+$/.test(text)) return null;
  let ms = 0;
  for (const [, n, u] of text.matchAll(/(\d+)([smhd])/g)) ms += Number(n) * unit[u!]!;
  return ms;
}

async function finalizedSlot(rpc: SolanaRpc): Promise<number> {
  const slot = await rpc("getSlot", [FINALIZED]);
  if (typeof slot !== "number") throw new Error(`getSlot returned ${JSON.stringify(slot)}`);
  return slot;
}

/** The slot `delayMs` from now at the target slot time, and the time announced with it. */
export async function slotAfter(rpc: SolanaRpc, delayMs: number, now = new Date()): Promise<{ slot: number; notBefore: string }> {
  const current = await finalizedSlot(rpc);
  return { slot: current + Math.ceil(delayMs / SLOT_MS), notBefore: new Date(now.getTime() + delayMs).toISOString() };
}

/** The expected time of `slot`, from the cluster's finalized slot now. */
export async function slotTime(rpc: SolanaRpc, slot: number, now = new Date()): Promise<string> {
  const current = await finalizedSlot(rpc);
  return new Date(now.getTime() + Math.max(0, slot - current) * SLOT_MS).toISOString();
}

/**
 * The first finalized block at or after `slot` and its blockhash. Refuses while the
 * cluster has not finalized a block at or after the slot: a beacon read early could be
 * replaced by another fork's.
 */
export async function beaconBlock(rpc: SolanaRpc, slot: number): Promise<{ blockSlot: number; blockhash: string }> {
  const current = await finalizedSlot(rpc);
  if (current < slot) {
    const hours = (((slot - current) * SLOT_MS) / 3_600_000).toFixed(1);
    throw new Error(`the beacon slot ${slot} is not finalized yet (the cluster's finalized slot is ${current}, about ${hours} h to go)`);
  }
  for (let from = slot; from <= current; from += WINDOW) {
    const to = Math.min(from + WINDOW - 1, current);
    const blocks = await rpc("getBlocks", [from, to, FINALIZED]);
    if (!Array.isArray(blocks) || blocks.some((b) => typeof b !== "number")) throw new Error(`getBlocks returned ${JSON.stringify(blocks)}`);
    const first = (blocks as number[]).filter((b) => b >= slot).sort((a, b) => a - b)[0];
    if (first === undefined) continue;
    const block = await rpc("getBlock", [first, { ...FINALIZED, transactionDetails: "none", rewards: false, maxSupportedTransactionVersion: 0 }]);
    const blockhash = (block as { blockhash?: unknown } | null)?.blockhash;
    if (typeof blockhash !== "string") throw new Error(`getBlock ${first} returned no blockhash`);
    return { blockSlot: first, blockhash };
  }
  throw new Error(`no finalized block yet at or after slot ${slot} (finalized slot ${current}): every slot since was skipped; try again shortly`);
}
