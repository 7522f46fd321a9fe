/**
 * Groth16 verification of a withdrawal proof. Implementations must reject
 * coordinates off the curve or outside the prime-order subgroup and public
 * signals not below the scalar field modulus, answering false, never throwing
 * for bad input. Verification is CPU-heavy: implementations run it off the
 * event loop.
 */
/**
 * verify() rejects with this when the verifier cannot take more work right now
 * (its queue is full): the proof was not judged; the caller answers "busy, try
 * again", never "invalid" and never an internal error.
 */
export class VerifierBusyError extends Error {
  override readonly name = "VerifierBusyError";
}

export interface ProofVerifier {
  /** proof: the 256-byte wire form; publicSignals: 32-byte big-endian field elements. */
  verify(proof: Uint8Array, publicSignals: readonly Uint8Array[]): Promise<boolean>;
  close(): Promise<void>;
}

/** A verifier that queues proofs (a worker pool): the console and /metrics show the queue's depth. */
export interface QueuedProofVerifier extends ProofVerifier {
  /** Proofs waiting for or in verification now. */
  readonly pending: number;
}
