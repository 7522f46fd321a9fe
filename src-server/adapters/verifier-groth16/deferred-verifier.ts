import type { QueuedProofVerifier } from "../../ports/proof-verifier";
import { VerifierClosedError } from "./worker-pool";

/** The verifier before and while its workers boot; `boot` starts them (once). */
export interface DeferredVerifier extends QueuedProofVerifier {
  /** Starts the workers now, unless started or closed already, and answers the pool once it is ready. */
  boot(): Promise<QueuedProofVerifier>;
  /** For the health check: whether the workers have booted, and why not when they failed. */
  status(): VerifierBootStatus;
}

export type VerifierBootStatus = { state: "waiting" | "booting" | "ready" } | { state: "failed"; error: string };

/**
 * The verifier whose workers boot when asked: the relay asks once its start is done
 * (compose-relay.ts), so that their boot (a V8 isolate, mcl-wasm's init and the key's checks,
 * and TurboFan compiling mcl's hot functions: ~0.2 s of CPU) does not share the cores with the
 * start's own work, and the first proof asks if it comes sooner. A proof that arrives
 * meanwhile waits for the pool. The key is read and checked before (the caller does: one that
 * cannot be read or parsed still stops the start); a worker that fails to boot is logged, and
 * every proof is then refused with that error.
 */
export function deferredVerifier(start: () => Promise<QueuedProofVerifier>, log: (line: string) => void): DeferredVerifier {
  let starting: Promise<QueuedProofVerifier> | null = null;
  let pool: QueuedProofVerifier | null = null;
  let failure: string | null = null;
  let closed = false;
  const boot = (): Promise<QueuedProofVerifier> => {
    if (starting) return starting;
    if (closed) return Promise.reject(new VerifierClosedError("verifier closed"));
    starting = start();
    starting.then(
      (p) => {
        pool = p;
      },
      (e: unknown) => {
        failure = (e as Error).message;
        log(`verifier: workers failed to start: ${failure}; proofs are refused until restart`);
      },
    );
    return starting;
  };
  return {
    get pending(): number {
      return pool?.pending ?? 0;
    },
    boot,
    status: () => (failure !== null ? { state: "failed", error: failure } : { state: pool ? "ready" : starting ? "booting" : "waiting" }),
    verify: (proof, publicSignals) => (pool ? pool.verify(proof, publicSignals) : boot().then((p) => p.verify(proof, publicSignals))),
    close: async () => {
      closed = true;
      // Started: the boot finishes, then the workers stop (no thread outlives the relay).
      await starting?.then(
        (p) => p.close(),
        () => {},
      );
    },
  };
}
