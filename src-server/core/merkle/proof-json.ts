import type { MerkleTree } from "./tree";

const NODE = 32;
/** `[` + 32 numbers of at most 3 digits + 31 commas + `]`. */
const MAX_NODE_JSON = 2 + NODE * 3 + NODE - 1;

/** Decimal digits of each byte value, ASCII, and how many there are. */
const DIGITS = new Uint8Array(256 * 3);
const DIGIT_COUNT = new Uint8Array(256);
for (let v = 0; v < 256; v++) {
  const s = String(v);
  DIGIT_COUNT[v] = s.length;
  for (let k = 0; k < s.length; k++) DIGITS[v * 3 + k] = s.charCodeAt(k);
}

const latin1 = (s: string): Uint8Array => {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
};

/** Writes `node` as a JSON number array (what JSON.stringify(Array.from(node)) gives) at `pos`; returns the new end. */
export function writeNodeJson(out: Uint8Array, pos: number, node: Uint8Array): number {
  out[pos++] = 0x5b; // [
  for (let i = 0; i < node.length; i++) {
    if (i) out[pos++] = 0x2c; // ,
    const v = node[i]!;
    const d = v * 3;
    out[pos++] = DIGITS[d]!;
    if (v >= 10) {
      out[pos++] = DIGITS[d + 1]!;
      if (v >= 100) out[pos++] = DIGITS[d + 2]!;
    }
  }
  out[pos++] = 0x5d; // ]
  return pos;
}

const nodeJson = (node: Uint8Array): Uint8Array => {
  const buf = new Uint8Array(MAX_NODE_JSON);
  return buf.slice(0, writeNodeJson(buf, 0, node));
};

export interface ProofJsonOptions {
  /** Answers kept for reuse until the tree changes (oldest dropped first); 0 keeps none. */
  maxAnswers?: number;
  /** Nodes at this level and above are kept as JSON text once their subtree is full. */
  segmentLevel?: number;
  /**
   * A copy of an answer's bytes in the caller's own type (the HTTP layer's: a Buffer, which its
   * socket writes without wrapping each answer again); a plain Uint8Array copy by default.
   */
  copy?: (bytes: Uint8Array) => Uint8Array;
}

const plainCopy = (bytes: Uint8Array): Uint8Array => bytes.slice();

/**
 * The get_proof answer of one tree as JSON bytes:
 * `{"address":"<address>","json":{"path":[[..32 bytes..],...],"indices":[0,1,...]}}`,
 * byte-identical to JSON.stringify of the same object.
 *
 * Most of an answer's cost is writing 1,024 numbers as text, and most of that
 * text does not change between requests, so three things are kept:
 *  - the text of each level's empty-subtree (zero) hash, which never changes;
 *  - the text of a node whose subtree is full (its leaves are all appended):
 *    the tree only appends, so such a node is final; kept from `segmentLevel`
 *    up, where there are at most nextIndex / 2^segmentLevel of them per level;
 *  - whole answers per leaf, dropped as soon as `nextIndex` moves (an append
 *    changes one node of every existing leaf's path).
 * The tree must only grow by `append`; a tree rebuilt from the store is a new
 * object and needs a new ProofJson.
 */
export class ProofJson {
  private readonly prefix: Uint8Array;
  private readonly zeroJson: Uint8Array[];
  private readonly segments: Map<number, Uint8Array>[];
  private readonly answers = new Map<number, Uint8Array>();
  private answersAt = -1;
  private readonly maxAnswers: number;
  private readonly segmentLevel: number;
  private readonly copy: (bytes: Uint8Array) => Uint8Array;
  private scratch: Uint8Array;

  constructor(
    private readonly tree: MerkleTree,
    address: string,
    opts: ProofJsonOptions = {},
  ) {
    this.prefix = latin1(`{"address":"${address}","json":{"path":[`);
    this.zeroJson = tree.zeros.map(nodeJson);
    this.segments = Array.from({ length: tree.depth }, () => new Map<number, Uint8Array>());
    this.maxAnswers = opts.maxAnswers ?? 1024;
    this.segmentLevel = opts.segmentLevel ?? 6;
    this.copy = opts.copy ?? plainCopy;
    this.scratch = new Uint8Array(this.prefix.length + tree.depth * (MAX_NODE_JSON + 1) + 32 + tree.depth * 2);
  }

  /** The answer for `leafIndex`, or null when it is not a leaf of the tree. The bytes must not be modified. */
  answer(leafIndex: number): Uint8Array | null {
    const tree = this.tree;
    const size = tree.nextIndex;
    if (!Number.isInteger(leafIndex) || leafIndex < 0 || leafIndex >= size) return null;
    if (this.answersAt !== size) {
      this.answers.clear();
      this.answersAt = size;
    }
    const known = this.answers.get(leafIndex);
    if (known) return known;

    const out = this.scratch;
    out.set(this.prefix, 0);
    let pos = this.prefix.length;
    let index = leafIndex;
    for (let level = 0; level < tree.depth; level++) {
      if (level) out[pos++] = 0x2c; // ,
      const sibling = index ^ 1;
      if (sibling >= tree.levelSize(level)) {
        const z = this.zeroJson[level]!;
        out.set(z, pos);
        pos += z.length;
      } else if (level >= this.segmentLevel && (sibling + 1) * 2 ** level <= size) {
        const cache = this.segments[level]!;
        let seg = cache.get(sibling);
        if (!seg) cache.set(sibling, (seg = nodeJson(tree.nodeView(level, sibling))));
        out.set(seg, pos);
        pos += seg.length;
      } else {
        pos = writeNodeJson(out, pos, tree.nodeView(level, sibling));
      }
      index >>>= 1;
    }
    // `],"indices":[` then one bit per level, then `]}}`.
    for (const c of '],"indices":[') out[pos++] = c.charCodeAt(0);
    index = leafIndex;
    for (let level = 0; level < tree.depth; level++) {
      if (level) out[pos++] = 0x2c;
      out[pos++] = 0x30 + (index & 1);
      index >>>= 1;
    }
    out[pos++] = 0x5d; // ]
    out[pos++] = 0x7d; // }
    out[pos++] = 0x7d; // }

    const text = this.copy(out.subarray(0, pos));
    if (this.maxAnswers > 0) {
      if (this.answers.size >= this.maxAnswers) this.answers.delete(this.answers.keys().next().value!);
      this.answers.set(leafIndex, text);
    }
    return text;
  }
}
