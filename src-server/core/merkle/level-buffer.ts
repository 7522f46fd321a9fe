const NODE = 32;

/**
 * One tree level as a growable run of 32-byte nodes. Capacity beyond `size`
 * is scratch space: the tree parks a zero hash there so a level's children
 * can be hashed straight out of the buffer without copying.
 */
export class LevelBuffer {
  private buf: Uint8Array;
  size = 0;

  constructor(initialNodes = 16) {
    this.buf = new Uint8Array(Math.max(2, initialNodes) * NODE);
  }

  get bytes(): Uint8Array {
    return this.buf;
  }

  ensureCapacity(nodes: number): void {
    if (nodes * NODE <= this.buf.length) return;
    let cap = this.buf.length / NODE;
    while (cap < nodes) cap *= 2;
    const next = new Uint8Array(cap * NODE);
    next.set(this.buf.subarray(0, this.size * NODE));
    this.buf = next;
  }

  /** A view of node `index`; valid until the next growth. */
  node(index: number): Uint8Array {
    return this.buf.subarray(index * NODE, index * NODE + NODE);
  }

  write(index: number, bytes: Uint8Array): void {
    this.ensureCapacity(index + bytes.length / NODE);
    this.buf.set(bytes, index * NODE);
  }

  view(start: number, count: number): Uint8Array {
    return this.buf.subarray(start * NODE, (start + count) * NODE);
  }
}
