import type { BenchCase } from "../lib/bench-case";

/** In report order. Each runs in its own child process (bench/worker.ts); the cases import nothing from here. */
export const CASES: Record<string, () => Promise<BenchCase>> = {
  poseidon: async () => (await import("./poseidon")).default,
  "batch-append": async () => (await import("./batch-append")).default,
  deposits: async () => (await import("./deposits")).default,
  proof: async () => (await import("./proof")).default,
  "proof-http": async () => (await import("./proof-http")).default,
  startup: async () => (await import("./startup")).default,
  snapshot: async () => (await import("./snapshot")).default,
  verify: async () => (await import("./verify")).default,
  relay: async () => (await import("./relay")).default,
  "relay-solana": async () => (await import("./relay-solana")).default,
  "scale-out": async () => (await import("./scale-out")).default,
  backfill: async () => (await import("./backfill")).default,
  programs: async () => (await import("./programs")).default,
  circuit: async () => (await import("./circuit")).default,
  prover: async () => (await import("./prover")).default,
};
