/**
 * Faults the local validator can inject, switchable at run time
 * (`validator.faults.set({...})` or the `localnet_setFaults` RPC method).
 * `set` merges into the current settings; a field set to `null`, `0` or
 * `false` turns that fault off; `clear()` turns everything off.
 *
 * Counters (`dropTransactions`, `expireNext`, `simulationFailures`,
 * `rpcErrors.count`, `rpcTimeout.count`) count down as they fire and switch
 * their fault off at zero.
 */
import type { TransactionErrorJson } from "./ledger/errors";

export interface RpcErrorFault {
  /** Methods affected (default: every method except `localnet_*`). */
  methods?: string[];
  /** How many requests fail (default: until turned off). */
  count?: number;
  /** A negative number answers a JSON-RPC error with that code (e.g. -32005); 100..599 answers that HTTP status (e.g. 503, 429). */
  code: number;
  message?: string;
}

export interface RpcTimeoutFault {
  /** Methods affected (default: every method except `localnet_*`). */
  methods?: string[];
  /** The request is handled (its effects happen) but the answer is held this long. */
  ms: number;
  /** How many requests (default: until turned off). */
  count?: number;
}

export interface FaultSettings {
  /** The next n sendTransaction calls return their signature but the transaction never lands; a later resend of the same transaction lands. */
  dropTransactions?: number;
  /** Every sendTransaction is accepted and dropped. */
  dropAll?: boolean;
  /** Transactions land this many slots after they were received (slow confirmation). */
  landDelaySlots?: number;
  /** Every sendTransaction is dropped and block height jumps past the transaction's lastValidBlockHeight. */
  expireBlockhashes?: boolean;
  /** Like expireBlockhashes, for the next n sendTransaction calls only. */
  expireNext?: number;
  /** Simulations (simulateTransaction and sendTransaction's preflight) fail with this error… */
  simulationError?: { err: TransactionErrorJson; logs?: string[] } | null;
  /** …the next n of them (without a count: until turned off). */
  simulationFailures?: number;
  rpcErrors?: RpcErrorFault | null;
  /** Every HTTP request waits this long before it is handled. */
  rpcDelayMs?: number;
  rpcTimeout?: RpcTimeoutFault | null;
  /** The node is down: HTTP answers 503 to everything but `localnet_*` methods, websockets are closed and refused. */
  down?: boolean;
  /** Down now, and back up by itself after this many ms. */
  downForMs?: number;
  /** The node falls behind: slots and block heights it reports are n lower, getHealth and preflight answer -32005 "Node is behind by n slots". */
  lagSlots?: number;
}

const LOCALNET_PREFIX = "localnet_";

const matches = (methods: string[] | undefined, method: string) => (methods && methods.length ? methods.includes(method) : !method.startsWith(LOCALNET_PREFIX));

export class Faults {
  private s: FaultSettings = {};
  private downTimer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<(settings: FaultSettings) => void>();

  /** The settings in force (a copy). */
  get(): FaultSettings {
    return structuredClone(this.s);
  }

  set(patch: FaultSettings): FaultSettings {
    const next: FaultSettings = { ...this.s };
    for (const [k, v] of Object.entries(patch) as [keyof FaultSettings, unknown][]) {
      if (v === undefined) continue;
      if (v === null || v === false || v === 0) delete next[k];
      else (next as Record<string, unknown>)[k] = structuredClone(v);
    }
    if (patch.downForMs !== undefined) {
      if (this.downTimer) clearTimeout(this.downTimer);
      this.downTimer = null;
      delete next.downForMs;
      if (patch.downForMs > 0) {
        next.down = true;
        this.downTimer = setTimeout(() => {
          this.downTimer = null;
          this.set({ down: false });
        }, patch.downForMs);
        this.downTimer.unref?.();
      }
    }
    if (patch.down === false && this.downTimer) {
      clearTimeout(this.downTimer);
      this.downTimer = null;
    }
    validate(next);
    this.s = next;
    this.changed();
    return this.get();
  }

  clear(): void {
    if (this.downTimer) clearTimeout(this.downTimer);
    this.downTimer = null;
    this.s = {};
    this.changed();
  }

  onChange(listener: (settings: FaultSettings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l(this.get());
  }

  // ---------------------------------------------------- what the node asks

  get down(): boolean {
    return this.s.down === true;
  }
  get lagSlots(): number {
    return this.s.lagSlots ?? 0;
  }
  get landDelaySlots(): number {
    return this.s.landDelaySlots ?? 0;
  }
  get rpcDelayMs(): number {
    return this.s.rpcDelayMs ?? 0;
  }

  /** Whether this sendTransaction expires its blockhash (counts expireNext down). */
  takeExpire(): boolean {
    if (this.s.expireBlockhashes) return true;
    if ((this.s.expireNext ?? 0) > 0) {
      this.countDown("expireNext");
      return true;
    }
    return false;
  }

  /** Whether this sendTransaction is dropped (counts dropTransactions down). */
  takeDrop(): boolean {
    if (this.s.dropAll) return true;
    if ((this.s.dropTransactions ?? 0) > 0) {
      this.countDown("dropTransactions");
      return true;
    }
    return false;
  }

  /** The error this simulation fails with, if any. */
  takeSimulationFailure(): { err: TransactionErrorJson; logs: string[] } | null {
    const f = this.s.simulationError;
    if (!f) return null;
    if (this.s.simulationFailures !== undefined) {
      this.countDown("simulationFailures");
      if (this.s.simulationFailures === undefined) {
        delete this.s.simulationError;
        this.changed();
      }
    }
    return { err: structuredClone(f.err), logs: [...(f.logs ?? [])] };
  }

  /** The injected error of this request, if any. */
  takeRpcError(method: string): RpcErrorFault | null {
    const f = this.s.rpcErrors;
    if (!f || !matches(f.methods, method)) return null;
    if (f.count !== undefined) {
      f.count -= 1;
      if (f.count <= 0) delete this.s.rpcErrors;
      this.changed();
    }
    return { ...f };
  }

  /** How long this request's answer is held, 0 for none. */
  takeTimeout(method: string): number {
    const f = this.s.rpcTimeout;
    if (!f || !matches(f.methods, method)) return 0;
    if (f.count !== undefined) {
      f.count -= 1;
      if (f.count <= 0) delete this.s.rpcTimeout;
      this.changed();
    }
    return f.ms;
  }

  private countDown(key: "dropTransactions" | "expireNext" | "simulationFailures"): void {
    const n = (this.s[key] ?? 0) - 1;
    if (n > 0) this.s[key] = n;
    else delete this.s[key];
    this.changed();
  }
}

function validate(s: FaultSettings): void {
  const nonNegative = ["dropTransactions", "landDelaySlots", "expireNext", "simulationFailures", "rpcDelayMs", "lagSlots"] as const;
  for (const k of nonNegative) {
    const v = s[k];
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new TypeError(`faults.${k} must be a non-negative integer`);
  }
  if (s.rpcErrors) {
    const c = s.rpcErrors.code;
    if (!Number.isInteger(c) || !(c < 0 || (c >= 100 && c <= 599)))
      throw new TypeError("faults.rpcErrors.code must be a negative JSON-RPC code or an HTTP status");
  }
  if (s.rpcTimeout && !(s.rpcTimeout.ms > 0)) throw new TypeError("faults.rpcTimeout.ms must be positive");
  if (s.simulationFailures !== undefined && !s.simulationError) throw new TypeError("faults.simulationFailures needs faults.simulationError");
}
