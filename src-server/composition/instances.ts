/**
 * This instance among those sharing the store (Coordination): its heartbeat, and the sweep that
 * gives a verdict to relays whose holder is gone, started for the composition root (compose-relay.ts).
 */
import type { Stores } from "../ports/stores";
import type { RelayService } from "../services/relay-service";
import type { TeardownStack } from "../teardown";

/** How often this instance says it is alive. */
const HEARTBEAT_MS = 1_000;
/** An instance silent this long is gone: its relays without a verdict are orphans. */
export const INSTANCE_STALE_MS = 10_000;
/** How often relays without a verdict are looked at (contract: every 5 s). */
const ORPHAN_SWEEP_MS = 5_000;

/**
 * The ids of the instances alive now, this one always among them: its own heartbeat runs on
 * its own timer (and at open), so asking does not write one again.
 */
export async function liveInstances(stores: Pick<Stores, "coordination">): Promise<string[]> {
  const { coordination } = stores;
  const ids = (await coordination.instances(INSTANCE_STALE_MS)).map((i) => i.id);
  return ids.includes(coordination.instanceId) ? ids : [...ids, coordination.instanceId];
}

/** Heartbeats and sweeps on unref'd timers; a failed round is logged once per distinct message and tried again. */
export function startOrphanSweep(relay: RelayService, stores: Pick<Stores, "coordination">, log: (line: string) => void, stack: TeardownStack): void {
  let lastError: string | null = null;
  const logOnce = (what: string) => (e: unknown) => {
    const message = `${what}: ${(e as Error).message}`;
    if (message !== lastError) log(message);
    lastError = message;
  };
  const heartbeat = setInterval(() => void stores.coordination.heartbeat().catch(logOnce("instance heartbeat")), HEARTBEAT_MS);
  heartbeat.unref();
  let running: Promise<void> | null = null;
  const sweep = setInterval(() => {
    running ??= liveInstances(stores)
      .then((live) => relay.resolveOrphans(live))
      .then((c) => {
        if (c.confirmed + c.failed) log(`relay: ${c.confirmed} relays without a verdict confirmed, ${c.failed} failed, ${c.held} still held`);
      })
      .catch(logOnce("relay orphan sweep"))
      .finally(() => (running = null));
  }, ORPHAN_SWEEP_MS);
  sweep.unref();
  // The store closes after this: a sweep under way finishes first.
  stack.defer("orphan sweep", async () => {
    clearInterval(heartbeat);
    clearInterval(sweep);
    await running;
  });
}
