/**
 * The ledger's slots: one blockhash per slot (block height = slot), their
 * block times, the blockhash validity window and the commitment a slot has
 * reached. Blockhashes older than twice the window (plus 10 slots) are
 * forgotten.
 */
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { COMMITMENTS, type Commitment, type LedgerSnapshot } from "./types";

export interface SlotClockOptions {
  confirmAfterSlots: number;
  finalizeAfterSlots: number;
  blockhashValidBlocks: number;
  now: () => number;
}

export class SlotClock {
  readonly confirmAfterSlots: number;
  readonly finalizeAfterSlots: number;
  readonly blockhashValidBlocks: number;
  private readonly now: () => number;

  private slot_ = 0;
  private genesisHash_: string;
  private blockhashes = new Map<string, number>();
  private slotHashes = new Map<number, string>();
  private slotTimes = new Map<number, number>();

  constructor(opts: SlotClockOptions) {
    this.confirmAfterSlots = opts.confirmAfterSlots;
    this.finalizeAfterSlots = opts.finalizeAfterSlots;
    this.blockhashValidBlocks = opts.blockhashValidBlocks;
    this.now = opts.now;
    this.genesisHash_ = bs58.encode(randomBytes(32));
    this.newBlockhash(0);
  }

  get slot(): number {
    return this.slot_;
  }
  get genesisHash(): string {
    return this.genesisHash_;
  }

  private newBlockhash(slot: number): void {
    const hash = bs58.encode(randomBytes(32));
    this.blockhashes.set(hash, slot);
    this.slotHashes.set(slot, hash);
    this.slotTimes.set(slot, Math.floor(this.now() / 1000));
  }

  /** Produces the next slot with its blockhash; returns it. */
  next(): number {
    this.slot_ += 1;
    this.newBlockhash(this.slot_);
    this.prune();
    return this.slot_;
  }

  private prune(): void {
    const keepFrom = this.slot_ - 2 * this.blockhashValidBlocks - 10;
    const old = this.slotHashes.get(keepFrom);
    if (old !== undefined) {
      this.blockhashes.delete(old);
      this.slotHashes.delete(keepFrom);
      this.slotTimes.delete(keepFrom);
    }
  }

  /** The newest blockhash (of `slot`, default the current one) and the last block height it is valid at. */
  latestBlockhash(atSlot = this.slot_): { blockhash: string; lastValidBlockHeight: number; slot: number } {
    let s = Math.max(0, Math.min(atSlot, this.slot_));
    while (!this.slotHashes.has(s) && s < this.slot_) s += 1;
    return { blockhash: this.slotHashes.get(s)!, lastValidBlockHeight: s + this.blockhashValidBlocks, slot: s };
  }

  /** Last valid block height of a known blockhash, or null. */
  blockhashLastValidHeight(blockhash: string): number | null {
    const s = this.blockhashes.get(blockhash);
    return s === undefined ? null : s + this.blockhashValidBlocks;
  }

  isBlockhashValid(blockhash: string): boolean {
    const last = this.blockhashLastValidHeight(blockhash);
    return last !== null && this.slot_ <= last;
  }

  unixTimeOf(slot: number): number {
    return this.slotTimes.get(slot) ?? Math.floor(this.now() / 1000);
  }

  /** The commitment a landed transaction of `slot` has reached. */
  commitmentOf(slot: number): Commitment {
    const d = this.slot_ - slot;
    if (d >= this.finalizeAfterSlots) return "finalized";
    if (d >= this.confirmAfterSlots) return "confirmed";
    return "processed";
  }

  reached(slot: number, commitment: Commitment): boolean {
    return COMMITMENTS.indexOf(this.commitmentOf(slot)) >= COMMITMENTS.indexOf(commitment);
  }

  snapshot(): Pick<LedgerSnapshot, "slot" | "genesisHash" | "blockhashes" | "slotTimes"> {
    return { slot: this.slot_, genesisHash: this.genesisHash_, blockhashes: [...this.blockhashes.entries()], slotTimes: [...this.slotTimes.entries()] };
  }

  restore(snapshot: Pick<LedgerSnapshot, "slot" | "genesisHash" | "blockhashes" | "slotTimes">): void {
    this.slot_ = snapshot.slot;
    this.genesisHash_ = snapshot.genesisHash;
    this.blockhashes = new Map(snapshot.blockhashes);
    this.slotHashes = new Map(snapshot.blockhashes.map(([h, s]) => [s, h]));
    this.slotTimes = new Map(snapshot.slotTimes);
  }
}
