/**
 * Groth16 verification of a withdrawal proof. Implementations must reject
 * coordinates off the curve or outside the prime-order subgroup and public
 * signals not below the scalar field modulus, answering false, never throwing
 * for bad input. Verification is CPU-heavy: implementations run it off the
 * event loop.
 */
export interface ProofVerifier {
  /** proof: the 256-byte wire form; publicSignals: 32-byte big-endian field elements. */
  verify(proof: Uint8Array, publicSignals: readonly Uint8Array[]): Promise<boolean>;
  close(): Promise<void>;
}
