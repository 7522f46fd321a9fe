import { createHash } from "node:crypto";
import type { ProofVerifier } from "../../ports/proof-verifier";

/**
 * Remembers proofs that verified, keyed by a hash of the proof and its public
 * signals. Verification is a pure function, so the relay's own check and the
 * sandbox program's check of the same withdrawal cost one pairing, not two.
 * Only successes are kept (bounded, oldest dropped first): a flood of bad
 * proofs cannot grow it, and a bad proof is never answered from memory.
 */
export class MemoizingVerifier implements ProofVerifier {
  private readonly verified = new Set<string>();

  constructor(
    private readonly inner: ProofVerifier,
    private readonly capacity = 1024,
  ) {}

  async verify(proof: Uint8Array, publicSignals: readonly Uint8Array[]): Promise<boolean> {
    const h = createHash("sha256").update(proof);
    for (const s of publicSignals) h.update(s);
    const key = `${publicSignals.length}:${h.digest("hex")}`;
    if (this.verified.has(key)) return true;
    const ok = await this.inner.verify(proof, publicSignals);
    if (ok) {
      this.verified.add(key);
      if (this.verified.size > this.capacity) this.verified.delete(this.verified.values().next().value as string);
    }
    return ok;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
