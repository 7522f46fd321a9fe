import { toHex } from "../../../src-shared/encoding/bytes";

/** The last N roots of a pool, oldest first, with O(1) membership. */
export class RootHistory {
  private readonly roots: Uint8Array[] = [];
  private readonly counts = new Map<string, number>();

  constructor(readonly capacity: number) {}

  push(root: Uint8Array): void {
    this.roots.push(root);
    const key = toHex(root);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (this.roots.length > this.capacity) {
      const dropped = toHex(this.roots.shift()!);
      const left = (this.counts.get(dropped) ?? 1) - 1;
      if (left === 0) this.counts.delete(dropped);
      else this.counts.set(dropped, left);
    }
  }

  has(root: Uint8Array): boolean {
    return this.counts.has(toHex(root));
  }

  list(): readonly Uint8Array[] {
    return this.roots;
  }
}
