/** The ledger's events and their listeners; a failing listener is logged and does not stop the others. */
import type { Commitment, TransactionRecord } from "./types";

export type Listener<A extends unknown[]> = (...args: A) => void;

export interface LedgerEvents {
  slot: [slot: number];
  /** A transaction landed (commitment processed). */
  transaction: [record: TransactionRecord];
  /** A landed transaction reached `confirmed` or `finalized`. */
  commitment: [level: Exclude<Commitment, "processed">, record: TransactionRecord];
  /** Accounts changed (by a transaction or a test method) in `slot`; null: any account may have changed (a restore). */
  accounts: [addresses: string[] | null, slot: number];
}

export class LedgerEventHub {
  private readonly listeners: { [K in keyof LedgerEvents]: Set<Listener<LedgerEvents[K]>> } = {
    slot: new Set(),
    transaction: new Set(),
    commitment: new Set(),
    accounts: new Set(),
  };

  on<K extends keyof LedgerEvents>(event: K, listener: Listener<LedgerEvents[K]>): () => void {
    (this.listeners[event] as Set<Listener<LedgerEvents[K]>>).add(listener);
    return () => (this.listeners[event] as Set<Listener<LedgerEvents[K]>>).delete(listener);
  }

  emit<K extends keyof LedgerEvents>(event: K, ...args: LedgerEvents[K]): void {
    for (const l of this.listeners[event] as Set<Listener<LedgerEvents[K]>>) {
      try {
        l(...args);
      } catch (e) {
        console.error(`[localnet] ${event} listener failed`, e);
      }
    }
  }
}
