/**
 * A circomlib-compatible Poseidon over the BN254 scalar field, on the wire
 * form (32-byte big-endian canonical elements). The Merkle core receives one
 * of these instead of importing a hash library, so it stays pure and testable.
 */
export interface FieldHasher {
  /** Poseidon of 1..16 elements. */
  hash(inputs: readonly Uint8Array[]): Uint8Array;
  /**
   * Hashes `count` adjacent pairs read from `pairs` (2·count·32 bytes) into
   * `out` at `outOffset` (count·32 bytes). One call per tree level keeps the
   * per-hash overhead out of batch appends.
   */
  hashPairs(pairs: Uint8Array, count: number, out: Uint8Array, outOffset: number): void;
}
