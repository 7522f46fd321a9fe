import { err, ok, type Result } from "../result";

/**
 * Runtime decoders for the relay's answers, and the types derived from them:
 * each answer's shape is written once (here in src-shared/api/), the server
 * builds its answers as the derived type, and the SDK and the console decode
 * what they receive with the same declaration. A relay is a remote party, so a
 * malformed answer becomes an error naming the field instead of a crash deep in
 * the caller. Keys a decoder does not declare are dropped.
 */
export type Decoder<T> = ((value: unknown) => Result<T, string>) & {
  /** The same check with the path of the value inside the answer, so an error names the field. */
  readonly at?: (value: unknown, path: string) => Result<T, string>;
};

/** The type a decoder produces. */
export type Infer<D> = D extends Decoder<infer T> ? T : never;

/** Decodes `value` found at `path`, naming the path in the error of a decoder written by hand too. */
export function decodeAt<T>(d: Decoder<T>, value: unknown, path: string): Result<T, string> {
  if (d.at) return d.at(value, path);
  const r = d(value);
  return r.ok || !path ? r : err(`${path}: ${r.error}`);
}

export function decoder<T>(check: (value: unknown, path: string) => Result<T, string>): Decoder<T> {
  return Object.assign((value: unknown) => check(value, ""), { at: check });
}

const fail = (path: string, what: string): Result<never, string> => err(`${path || "the answer"} is not ${what}`);

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export const string: Decoder<string> = decoder((v, p) => (typeof v === "string" ? ok(v) : fail(p, "a string")));
export const boolean: Decoder<boolean> = decoder((v, p) => (typeof v === "boolean" ? ok(v) : fail(p, "true or false")));
export const number: Decoder<number> = decoder((v, p) => (typeof v === "number" && Number.isFinite(v) ? ok(v) : fail(p, "a number")));
export const integer: Decoder<number> = decoder((v, p) => (typeof v === "number" && Number.isSafeInteger(v) ? ok(v) : fail(p, "an integer")));
export const nonNegInt: Decoder<number> = decoder((v, p) =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? ok(v) : fail(p, "a non-negative integer"),
);
/** A base-unit amount as decimal text (JSON numbers lose precision above 2^53). */
export const decimalText: Decoder<string> = decoder((v, p) => (typeof v === "string" && /^[0-9]+$/.test(v) ? ok(v) : fail(p, "decimal text")));

export function literal<const L extends readonly (string | number | boolean | null)[]>(...values: L): Decoder<L[number]> {
  return decoder((v, p) =>
    (values as readonly unknown[]).includes(v) ? ok(v as L[number]) : fail(p, `one of ${values.map((x) => JSON.stringify(x)).join(", ")}`),
  );
}

export function nullable<T>(d: Decoder<T>): Decoder<T | null> {
  return decoder<T | null>((v, p) => (v === null ? ok(null) : decodeAt<T | null>(d, v, p)));
}

/** A key that may be missing (or undefined) in an object. */
export type Optional<T> = Decoder<T | undefined> & { readonly optional: true };
export function optional<T>(d: Decoder<T>): Optional<T> {
  return Object.assign(
    decoder<T | undefined>((v, p) => (v === undefined ? ok(undefined) : decodeAt(d, v, p))),
    { optional: true as const },
  );
}

export function array<T>(d: Decoder<T>): Decoder<T[]> {
  return decoder((v, p) => {
    if (!Array.isArray(v)) return fail(p, "an array");
    const out: T[] = [];
    for (let i = 0; i < v.length; i++) {
      const r = decodeAt(d, v[i], `${p}[${i}]`);
      if (!r.ok) return r;
      out.push(r.value);
    }
    return ok(out);
  });
}

/** An object whose keys are data (network names, error names...), each value decoded by `d`. */
export function record<T>(d: Decoder<T>): Decoder<Record<string, T>> {
  return decoder((v, p) => {
    if (!isRecord(v)) return fail(p, "an object");
    const out: Record<string, T> = {};
    for (const [k, x] of Object.entries(v)) {
      const r = decodeAt(d, x, p ? `${p}.${k}` : k);
      if (!r.ok) return r;
      out[k] = r.value;
    }
    return ok(out);
  });
}

/** Like {@link record}, with keys from a known set; other keys are dropped. */
export function partialRecord<K extends string, T>(keys: readonly K[], d: Decoder<T>): Decoder<Partial<Record<K, T>>> {
  const all = record(d);
  return decoder((v, p) => {
    const r = decodeAt(all, v, p);
    if (!r.ok) return r;
    const out: Partial<Record<K, T>> = {};
    for (const k of keys) if (r.value[k] !== undefined) out[k] = r.value[k];
    return ok(out);
  });
}

type Shape = Record<string, Decoder<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends { optional: true } ? K : never }[keyof S];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<S extends Shape> = Simplify<
  { [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Exclude<Infer<S[K]>, undefined> }
>;
export type ObjectDecoder<S extends Shape> = Decoder<ObjectOf<S>> & { readonly shape: S };

export function object<S extends Shape>(shape: S): ObjectDecoder<S> {
  const d = decoder<ObjectOf<S>>((v, p) => {
    if (!isRecord(v)) return fail(p, "an object");
    const out: Record<string, unknown> = {};
    for (const [k, field] of Object.entries(shape)) {
      const r = decodeAt(field, v[k], p ? `${p}.${k}` : k);
      if (!r.ok) return r;
      if (r.value !== undefined) out[k] = r.value;
    }
    return ok(out as ObjectOf<S>);
  });
  return Object.assign(d, { shape });
}

/** An object decoder with more keys (the wire form of `interface B extends A`). */
export function extend<S extends Shape, E extends Shape>(base: ObjectDecoder<S>, more: E): ObjectDecoder<Omit<S, keyof E> & E> {
  return object({ ...base.shape, ...more } as Omit<S, keyof E> & E);
}

/** The value of one key of an object answer (`{ pools: [...] }` → the pools). */
export function field<T, K extends keyof T>(d: Decoder<T>, key: K): Decoder<T[K]> {
  return decoder<T[K]>((v, p) => {
    const r = decodeAt(d, v, p);
    return r.ok ? ok(r.value[key]) : r;
  });
}
