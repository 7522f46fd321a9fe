/**
 * Real withdrawals relayed by many clients at once (each body different, each answer checked):
 * the load behind the sustained-relay figures of `relay` and `scale-out`.
 */
import type { PreparedWithdrawal } from "../../tests/support/proofs";
import { jsonClient } from "./http-client";

/** Calls `each` on every item with at most `inFlight` calls pending at once, in order of starting. */
export async function inFlight<T>(items: readonly T[], inFlight: number, each: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) await each(items[i]!, i);
    }),
  );
}

/** Relays `proofs` with `clients` in flight, alternating `urls`; each must answer 200 with a signature. Latencies in ms. */
export async function relayAll(urls: string[], proofs: PreparedWithdrawal[], clients: number): Promise<number[]> {
  const http = urls.map((u) => jsonClient(u, clients));
  const latencies: number[] = [];
  try {
    await inFlight(proofs, clients, async (proof, i) => {
      const t = performance.now();
      const r = await http[i % urls.length]!.post("/relay", proof.body);
      if (r.status !== 200 || typeof r.json.signature !== "string") {
        throw new Error(`relay ${i} on ${urls[i % urls.length]} answered ${r.status} ${String(r.json.error ?? "")} ${String(r.json.message ?? "")}`);
      }
      latencies.push(performance.now() - t);
    });
  } finally {
    for (const h of http) h.close();
  }
  return latencies;
}
