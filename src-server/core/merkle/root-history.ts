const ROOT = 32;
/** A ring starts this small and doubles up to its capacity: most pools of a relay see few roots. */
const INITIAL_SLOTS = 16;

/**
 * The last N roots of a pool, oldest first: a ring of N × 32 bytes and nothing
 * else. With N = 1,000 (ROOT_HISTORY_SIZE) a pool's history is 32 KB, where
 * one object per root plus a map of string keys took about five times that;
 * a relay holds two per pool (the indexer's tree, the sandbox's frontier).
 * Membership scans the ring word by word: 1,000 roots take a few
 * microseconds, once per withdrawal request.
 */
export class RootHistory {
  private ring: Uint8Array;
  private words: Uint32Array;
  /** Roots held (at most capacity). */
  private count = 0;
  /** The slot the next root goes to. */
  private head = 0;
  /** A root copied to an aligned buffer so it can be read as words. */
  private readonly probe = new Uint8Array(ROOT);
  private readonly probeWords = new Uint32Array(this.probe.buffer);

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`a root history holds at least one root, got ${capacity}`);
    this.ring = new Uint8Array(Math.min(capacity, INITIAL_SLOTS) * ROOT);
    this.words = new Uint32Array(this.ring.buffer);
  }

  get size(): number {
    return this.count;
  }

  push(root: Uint8Array): void {
    if (root.length !== ROOT) throw new RangeError(`a root is 32 bytes, got ${root.length}`);
    const slots = this.ring.length / ROOT;
    if (this.count === slots && slots < this.capacity) this.grow();
    this.ring.set(root, this.head * ROOT);
    this.head = (this.head + 1) % (this.ring.length / ROOT);
    if (this.count < this.ring.length / ROOT) this.count++;
  }

  has(root: Uint8Array): boolean {
    if (root.length !== ROOT) return false;
    this.probe.set(root);
    const p = this.probeWords;
    const w = this.words;
    const p0 = p[0]!;
    // Only slots written so far: before the ring is full they are 0..count-1.
    const end = this.count * 8;
    for (let i = 0; i < end; i += 8) {
      if (w[i] !== p0) continue;
      if (w[i + 1] === p[1] && w[i + 2] === p[2] && w[i + 3] === p[3] && w[i + 4] === p[4] && w[i + 5] === p[5] && w[i + 6] === p[6] && w[i + 7] === p[7])
        return true;
    }
    return false;
  }

  /** The roots, oldest first (copies). */
  list(): Uint8Array[] {
    const all = this.bytes();
    return Array.from({ length: this.count }, (_, i) => all.slice(i * ROOT, (i + 1) * ROOT));
  }

  /** The roots, oldest first, in one buffer of 32 bytes each (how a pool program stores them). */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.count * ROOT);
    const slots = this.ring.length / ROOT;
    const oldest = this.count < slots ? 0 : this.head;
    const first = (slots - oldest) * ROOT;
    out.set(this.ring.subarray(oldest * ROOT, Math.min(this.ring.length, oldest * ROOT + this.count * ROOT)));
    if (oldest > 0) out.set(this.ring.subarray(0, this.head * ROOT), first);
    return out;
  }

  /** Doubles the ring (up to capacity); only while it is not yet full, so the roots are in slots 0..count-1 in order. */
  private grow(): void {
    const slots = Math.min(this.capacity, (this.ring.length / ROOT) * 2);
    const ring = new Uint8Array(slots * ROOT);
    ring.set(this.ring);
    this.ring = ring;
    this.words = new Uint32Array(ring.buffer);
    this.head = this.count;
  }
}
