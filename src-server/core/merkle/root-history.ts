/** A root as a map key: one character per byte (one native call, a flat string). */
const key = (root: Uint8Array): string => String.fromCharCode.apply(null, root as unknown as number[]);

/** The last N roots of a pool, oldest first, with O(1) membership. */
export class RootHistory {
  private readonly roots: Uint8Array[] = [];
  private readonly counts = new Map<string, number>();

  constructor(readonly capacity: number) {}

  push(root: Uint8Array): void {
    this.roots.push(root);
    const k = key(root);
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    if (this.roots.length > this.capacity) {
      const dropped = key(this.roots.shift()!);
      const left = (this.counts.get(dropped) ?? 1) - 1;
      if (left === 0) this.counts.delete(dropped);
      else this.counts.set(dropped, left);
    }
  }

  has(root: Uint8Array): boolean {
    return this.counts.has(key(root));
  }

  list(): readonly Uint8Array[] {
    return this.roots;
  }

  /** The roots, oldest first, in one buffer of 32 bytes each (how a pool program stores them). */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.roots.length * 32);
    for (let i = 0; i < this.roots.length; i++) out.set(this.roots[i]!, i * 32);
    return out;
  }
}
