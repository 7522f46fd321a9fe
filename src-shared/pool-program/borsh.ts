/**
 * The few Borsh primitives the pool's layouts need: little-endian integers,
 * raw byte arrays. Writers throw RangeError on values that do not fit (a bug
 * in the caller); readers report truncation as a value.
 */

const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

export class ByteWriter {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private offset = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  raw(value: Uint8Array, length: number, field: string): this {
    if (value.length !== length) throw new RangeError(`${field}: expected ${length} bytes, got ${value.length}`);
    this.bytes.set(value, this.offset);
    this.offset += length;
    return this;
  }

  u8(value: number, field: string): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xff) throw new RangeError(`${field}: ${value} is not a u8`);
    this.view.setUint8(this.offset, value);
    this.offset += 1;
    return this;
  }

  u32(value: number, field: string): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`${field}: ${value} is not a u32`);
    this.view.setUint32(this.offset, value, true);
    this.offset += 4;
    return this;
  }

  u64(value: bigint, field: string): this {
    if (typeof value !== "bigint" || value < 0n || value > U64_MAX) throw new RangeError(`${field}: ${String(value)} is not a u64`);
    this.view.setBigUint64(this.offset, value, true);
    this.offset += 8;
    return this;
  }

  i64(value: bigint, field: string): this {
    if (typeof value !== "bigint" || value < I64_MIN || value > I64_MAX) throw new RangeError(`${field}: ${String(value)} is not an i64`);
    this.view.setBigInt64(this.offset, value, true);
    this.offset += 8;
    return this;
  }

  skip(length: number): this {
    this.offset += length;
    return this;
  }

  /** The written bytes; throws when the layout and the size disagree (a bug here). */
  finish(): Uint8Array {
    if (this.offset !== this.bytes.length) throw new Error(`layout wrote ${this.offset} of ${this.bytes.length} bytes`);
    return this.bytes;
  }
}

/** Reads a buffer whose length the caller has already checked. */
export class ByteReader {
  private readonly view: DataView;
  offset: number;

  constructor(
    private readonly bytes: Uint8Array,
    start = 0,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.offset = start;
  }

  raw(length: number): Uint8Array {
    const out = this.bytes.slice(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  u8(): number {
    const v = this.view.getUint8(this.offset);
    this.offset += 1;
    return v;
  }

  u32(): number {
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }

  u64(): bigint {
    const v = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return v;
  }

  i64(): bigint {
    const v = this.view.getBigInt64(this.offset, true);
    this.offset += 8;
    return v;
  }

  skip(length: number): this {
    this.offset += length;
    return this;
  }
}

export function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** Checks exact length and discriminator; the message names the layout. */
export function checkHeader(bytes: Uint8Array, what: string, size: number, discriminator: Uint8Array): string | null {
  if (!(bytes instanceof Uint8Array)) return `${what}: not bytes`;
  if (bytes.length < discriminator.length) return `${what}: truncated (${bytes.length} bytes, not even a discriminator)`;
  if (!startsWith(bytes, discriminator)) return `${what}: wrong discriminator`;
  if (bytes.length !== size) return `${what}: expected ${size} bytes, got ${bytes.length}`;
  return null;
}
