/**
 * Relay and revert state changes as events, for metrics, alerts and the
 * structured log, without touching the services that make them: the stores
 * the services write through are wrapped, and every state they record is
 * passed on after it was recorded. A listener's failure never reaches the
 * service (it is caught and dropped).
 */
import type { Network } from "../../src-shared/networks";
import type { RelayState } from "../core/relay/states";
import type { RevertState } from "../core/revert/states";
import type { NewRelayRecord, RelayStore } from "../ports/relay-store";
import type { RelayEvent, RevertEvent } from "../ports/relay-events";
import type { NewRevertRecord, RevertStore } from "../ports/revert-store";

type Meta = { kind: NewRelayRecord["kind"]; network: Network; mint: string; receivedAt: number; times: Partial<Record<RelayState["kind"], number>> };

const quietly = (f: () => void): void => {
  try {
    f();
  } catch {
    // A listener (metrics, alerts, logs) must never fail a relay.
  }
};

/** The relay store, passing each recorded state to `listener`. */
export function observeRelayStore(store: RelayStore, listener: (e: RelayEvent) => void): RelayStore {
  const meta = new Map<string, Meta>();
  const emit = async (id: string, state: RelayState): Promise<void> => {
    let m = meta.get(id);
    if (!m) {
      const r = await store.get(id);
      if (!r) return;
      m = { kind: r.kind, network: r.network, mint: r.mint, receivedAt: r.receivedAt, times: Object.fromEntries(r.steps.map((s) => [s.kind, s.at])) };
      meta.set(id, m);
    }
    m.times[state.kind] ??= state.at;
    const e: RelayEvent = { id, kind: m.kind, network: m.network, mint: m.mint, state, receivedAt: m.receivedAt, times: { ...m.times } };
    if (state.kind === "confirmed" || state.kind === "failed") meta.delete(id);
    quietly(() => listener(e));
  };
  return overriding(store, {
    create: async (record, first) => {
      const created = await store.create(record, first);
      // A relay refused the lock left no record: nothing happened to report.
      if (created === "locked") return created;
      meta.set(record.id, { kind: record.kind, network: record.network, mint: record.mint, receivedAt: record.receivedAt, times: {} });
      await emit(record.id, first);
      return created;
    },
    advance: async (id, state) => {
      await store.advance(id, state);
      await emit(id, state);
    },
  });
}

/** The store with some methods replaced; every other method (and any added later) is the store's own, bound to it. */
function overriding<T extends object>(store: T, own: Partial<T>): T {
  return new Proxy(store, {
    get(target, key) {
      if (Object.hasOwn(own, key)) return own[key as keyof T];
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** The revert store, passing each recorded state to `listener`. */
export function observeRevertStore(store: RevertStore, listener: (e: RevertEvent) => void): RevertStore {
  const emit = async (id: string, state: RevertState, network?: Network, requestedAt?: number): Promise<void> => {
    const r = network && requestedAt !== undefined ? { network, requestedAt } : await store.get(id);
    if (!r) return;
    quietly(() => listener({ id, network: r.network, state, requestedAt: r.requestedAt }));
  };
  return overriding(store, {
    create: async (record: NewRevertRecord, first: RevertState) => {
      await store.create(record, first);
      await emit(record.id, first, record.network, record.requestedAt);
    },
    advance: async (id: string, state: RevertState, deposit?: { mint: string; amount: bigint }) => {
      await store.advance(id, state, deposit);
      await emit(id, state);
    },
  });
}
