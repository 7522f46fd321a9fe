/**
 * Landed transactions: the signature status cache, the history per address
 * (getSignaturesForAddress), the recent prioritization fees, and the records
 * still waiting to reach `confirmed` or `finalized`.
 */
import type { Commitment, TransactionRecord } from "./types";

export class TransactionHistory {
  private records: TransactionRecord[] = [];
  private statuses = new Map<string, TransactionRecord>();
  private byAddress = new Map<string, TransactionRecord[]>();
  private pendingConfirmed: TransactionRecord[] = [];
  private pendingFinalized: TransactionRecord[] = [];

  get count(): number {
    return this.records.length;
  }

  has(signature: string): boolean {
    return this.statuses.has(signature);
  }

  get(signature: string): TransactionRecord | null {
    return this.statuses.get(signature) ?? null;
  }

  add(record: TransactionRecord): void {
    this.records.push(record);
    this.statuses.set(record.signature, record);
    for (const key of new Set(record.accountKeys)) {
      let list = this.byAddress.get(key);
      if (!list) this.byAddress.set(key, (list = []));
      list.push(record);
    }
    this.pendingConfirmed.push(record);
    this.pendingFinalized.push(record);
  }

  /** The oldest record still waiting for `level`, taken off the wait list once its slot is `afterSlots` behind `slot`. */
  takeReached(level: Exclude<Commitment, "processed">, slot: number, afterSlots: number): TransactionRecord | undefined {
    const pending = level === "confirmed" ? this.pendingConfirmed : this.pendingFinalized;
    if (pending.length && pending[0]!.slot + afterSlots <= slot) return pending.shift();
    return undefined;
  }

  /**
   * Signatures of landed transactions that touched `address`, newest first,
   * at `commitment` or better; `before`/`until` are exclusive bounds.
   */
  forAddress(
    address: string,
    reached: (slot: number, commitment: Commitment) => boolean,
    opts: { before?: string; until?: string; limit?: number; commitment?: Commitment } = {},
  ): TransactionRecord[] {
    const list = this.byAddress.get(address) ?? [];
    const limit = opts.limit ?? 1000;
    const commitment = opts.commitment ?? "finalized";
    let i = list.length - 1;
    if (opts.before !== undefined) {
      const at = list.findIndex((r) => r.signature === opts.before);
      if (at < 0) return [];
      i = at - 1;
    }
    const out: TransactionRecord[] = [];
    for (; i >= 0 && out.length < limit; i--) {
      const r = list[i]!;
      if (r.signature === opts.until) break;
      if (!reached(r.slot, commitment)) continue;
      out.push(r);
    }
    return out;
  }

  /**
   * Per slot of the last 150 up to `slot`: the lowest compute-unit price
   * (micro-lamports) among landed transactions that write one of `writable`
   * (any transaction when empty), the highest over the accounts; 0 for none.
   */
  recentPrioritizationFees(writable: readonly string[], slot: number): { slot: number; prioritizationFee: number }[] {
    const from = Math.max(0, slot - 149);
    const bySlot = new Map<number, Map<string, bigint>>();
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i]!;
      if (r.slot < from) break;
      const price = BigInt(r.unitPrice);
      const targets = writable.length ? writable.filter((a) => r.accountKeys.some((k, j) => k === a && r.writable[j])) : ["*"];
      let m = bySlot.get(r.slot);
      if (!m) bySlot.set(r.slot, (m = new Map()));
      for (const t of targets) {
        const prev = m.get(t);
        if (prev === undefined || price < prev) m.set(t, price);
      }
    }
    const out: { slot: number; prioritizationFee: number }[] = [];
    for (let s = from; s <= slot; s++) {
      let fee = 0n;
      for (const v of bySlot.get(s)?.values() ?? []) if (v > fee) fee = v;
      out.push({ slot: s, prioritizationFee: Number(fee) });
    }
    return out;
  }

  /** A deep copy of every record, oldest first. */
  snapshot(): TransactionRecord[] {
    return structuredClone(this.records);
  }

  /** Replaces the history with `records`; those already past a commitment at `slot` no longer wait for it. */
  restore(records: readonly TransactionRecord[], slot: number, confirmAfterSlots: number, finalizeAfterSlots: number): void {
    this.records = [];
    this.statuses = new Map();
    this.byAddress = new Map();
    this.pendingConfirmed = [];
    this.pendingFinalized = [];
    for (const r of structuredClone(records)) this.add(r);
    this.pendingConfirmed = this.pendingConfirmed.filter((r) => r.slot + confirmAfterSlots > slot);
    this.pendingFinalized = this.pendingFinalized.filter((r) => r.slot + finalizeAfterSlots > slot);
  }
}
