import type { QueuedProofVerifier } from "../../ports/proof-verifier";

/**
 * The verifier while its workers boot: the relay starts listening without
 * waiting for them (about a second at start, most of the start-up time of an
 * empty relay), and a proof that arrives meanwhile waits for the pool. A key
 * that cannot be read or parsed still fails the start (the caller checks that
 * before listening); a worker that fails to boot later is logged, and every
 * proof is then refused with that error.
 */
export function deferredVerifier(starting: Promise<QueuedProofVerifier>, log: (line: string) => void): QueuedProofVerifier {
  let pool: QueuedProofVerifier | null = null;
  starting.then(
    (p) => {
      pool = p;
    },
    (e: unknown) => log(`verifier: workers failed to start: ${(e as Error).message}; proofs are refused until restart`),
  );
  return {
    get pending(): number {
      return pool?.pending ?? 0;
    },
    verify: (proof, publicSignals) => (pool ? pool.verify(proof, publicSignals) : starting.then((p) => p.verify(proof, publicSignals))),
    close: () =>
      starting.then(
        (p) => p.close(),
        () => {},
      ),
  };
}
