import { U64_MAX } from "../crypto/protocol";
import { parseBase58 } from "../encoding/base58";
import { parseByteArray } from "../encoding/bytes";
import { isZeroBytes, parseFieldBytes } from "../encoding/field";
import type { ErrorNameValue } from "../errors";
import { isNetwork, type Network } from "../networks";
import { err, ok, type Result } from "../result";
import { decodeAt, decoder, isRecord, type Decoder } from "./decode";

/**
 * The fields of the requests the relay takes (requests.ts declares the bodies): each field
 * decodes what the server receives, on the decoder combinators the answers use
 * (decode.ts), and encodes what the SDK sends, so one declaration holds the wire
 * shape for both. A request's error names the field, in the words the relay
 * has always answered: `<field>: <problem>`, or a whole sentence where the
 * spec's message has one.
 */

/** How the key appears in a body: sent always, may be left out (null when it is), defaulted, a fixed value, or never sent. */
export type Presence = "required" | "optional" | "default" | "constant" | "refused";

/**
 * One field of a request: the value sent (W), what the server decodes it to (T), and
 * what an SDK caller gives (I, with bigint and Uint8Array conveniences).
 */
export type Field<W, T, I, P extends Presence = "required"> = Decoder<T> & {
  readonly at: (value: unknown, path: string) => Result<T, string>;
  /** The SDK side: the caller's value as it goes on the wire; throws RangeError for what JSON cannot carry. */
  readonly encode: (input: I) => W;
  readonly presence: P;
  /** Read only when this holds for the keys before it (onlyWhen); otherwise the key reads as null, whatever was sent. */
  readonly when?: (decoded: Readonly<Record<string, unknown>>) => boolean;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the type parameters are read back by inference only
type AnyField = Field<any, any, any, Presence>;
type WireT<F> = F extends Field<infer W, unknown, never, Presence> ? W : never;
type InputT<F> = F extends Field<unknown, unknown, infer I, Presence> ? I : never;
type ParsedT<F> = F extends Field<unknown, infer T, never, Presence> ? T : never;

export type Shape = Record<string, AnyField>;
type KeysWith<S extends Shape, P extends Presence> = { [K in keyof S]: S[K]["presence"] extends P ? K : never }[keyof S];
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The JSON body as sent: what the SDK puts on the wire and the server receives. */
export type WireOf<D extends { shape: Shape }> = Simplify<
  { [K in keyof D["shape"] as K extends KeysWith<D["shape"], "optional" | "refused"> ? never : K]: WireT<D["shape"][K]> } & {
    [K in keyof D["shape"] as K extends KeysWith<D["shape"], "optional"> ? K : never]?: WireT<D["shape"][K]>;
  }
>;
/** What an SDK caller gives: fixed values left out, defaulted and optional keys optional. */
export type InputOf<D extends { shape: Shape }> = Simplify<
  { [K in keyof D["shape"] as K extends KeysWith<D["shape"], "required"> ? K : never]: InputT<D["shape"][K]> } & {
    [K in keyof D["shape"] as K extends KeysWith<D["shape"], "optional" | "default"> ? K : never]?: InputT<D["shape"][K]>;
  }
>;
/** What the server decodes a body to: an optional key left out is null. */
export type ParsedOf<D extends { shape: Shape }> = Simplify<{ [K in keyof D["shape"]]: ParsedT<D["shape"][K]> }>;

/** How a field's error reads: by default `<field>: <problem>`. */
export type Explain = (path: string, problem: string) => string;
const colon: Explain = (p, e) => `${p}: ${e}`;
const suffixed =
  (suffix: string): Explain =>
  (p, e) =>
    `${p}: ${e} (${suffix})`;

function field<W, T, I>(check: (value: unknown, path: string) => Result<T, string>, encode: (input: I) => W): Field<W, T, I> {
  return Object.assign(decoder(check), { at: check, encode, presence: "required" as const });
}

/** A key the sender may leave out: the server reads null, the SDK sends nothing. */
export function optional<W, T, I>(f: Field<W, T, I>): Field<W, T | null, I, "optional"> {
  const check = (v: unknown, p: string): Result<T | null, string> => (v === undefined ? ok(null) : decodeAt(f, v, p));
  return Object.assign(decoder(check), { at: check, encode: f.encode, presence: "optional" as const });
}

/**
 * A key read only when `applies` holds for the keys decoded before it (a fee's bps and floor,
 * unless the body asks for a reset); otherwise it reads as null, whatever was sent.
 */
export function onlyWhen<W, T, I, P extends Presence>(
  f: Field<W, T, I, P>,
  applies: (decoded: Readonly<Record<string, unknown>>) => boolean,
): Field<W, T | null, I, "optional"> {
  return Object.assign(decoder<T | null>(f.at), { at: f.at, encode: f.encode, presence: "optional" as const, when: applies });
}

/** A key with three states: left out (read as undefined), null, or a value `f` reads; the SDK leaves it out when not given. */
export function absentOrNull<W, T, I>(f: Field<W, T, I>): Field<W | null, T | null | undefined, I | null, "optional"> {
  const check = (v: unknown, p: string): Result<T | null | undefined, string> => (v === undefined || v === null ? ok(v) : f.at(v, p));
  return Object.assign(decoder(check), { at: check, encode: (i: I | null) => (i === null ? null : f.encode(i)), presence: "optional" as const });
}

/** A key the sender may leave out, read as `fallback`; the SDK always sends it. */
export function withDefault<W, T, I>(f: Field<W, T, I>, fallback: I & T): Field<W, T, I, "default"> {
  const check = (v: unknown, p: string): Result<T, string> => (v === undefined ? ok(fallback) : decodeAt(f, v, p));
  return Object.assign(decoder(check), { at: check, encode: (i: I | undefined) => f.encode(i ?? fallback), presence: "default" as const });
}

/** A key whose value the protocol fixes (depth 32): the SDK fills it in. */
export function constant<const V extends string | number>(value: V, explain: (path: string) => string): Field<V, V, undefined, "constant"> {
  const check = (v: unknown, p: string): Result<V, string> => (v === value ? ok(value) : err(explain(p)));
  return Object.assign(decoder(check), { at: check, encode: () => value, presence: "constant" as const });
}

/** The same field, sent from another caller type (an Amount the SDK checks into a JSON number). */
export function sentAs<W, T, I0, I>(f: Field<W, T, I0>, encode: (input: I) => W): Field<W, T, I> {
  return field(f.at, encode);
}

/** A key left out reads as this message instead of the field's own complaint (a field a protocol added). */
export function required<W, T, I>(f: Field<W, T, I>, missing: string): Field<W, T, I> {
  return field((v, p) => (v === undefined ? err(`${p}: ${missing}`) : decodeAt(f, v, p)), f.encode);
}

/** A further check on the decoded value, with its own problem. */
export function refine<W, T, I>(f: Field<W, T, I>, holds: (value: T) => boolean, problem: string): Field<W, T, I> {
  return field((v, p) => {
    const r = decodeAt(f, v, p);
    return !r.ok || holds(r.value) ? r : err(`${p}: ${problem}`);
  }, f.encode);
}

// ---- domain fields ----

const byteWire = (b: Uint8Array): number[] => Array.from(b);

/** A byte array of a fixed length (the spec's number[]); the length is checked before the elements. */
export const byteArray = (length: number, explain: Explain = suffixed(`${length} bytes`)): Field<number[], Uint8Array, Uint8Array> =>
  field((v, p) => {
    const r = parseByteArray(v, length);
    return r.ok ? r : err(explain(p, r.error));
  }, byteWire);

/** A field element: 32 bytes, big-endian, below the BN254 scalar field modulus. */
export const fieldBytes = (explain: Explain = suffixed("32 bytes, big-endian, below the field modulus")): Field<number[], Uint8Array, Uint8Array> =>
  field((v, p) => {
    const r = parseFieldBytes(v);
    return r.ok ? r : err(explain(p, r.error));
  }, byteWire);

/** A field element that is not zero (a leaf the pool refuses when it is). */
export const nonZeroFieldBytes = (problem: string): Field<number[], Uint8Array, Uint8Array> => refine(fieldBytes(), (b) => !isZeroBytes(b), problem);

/** Base58 text of a key or signature: the server keeps the text and its bytes. */
export interface Base58Value {
  text: string;
  bytes: Uint8Array;
}

/** Base58 of a known byte length; the text's length is bounded before decoding (base58 is quadratic in it). */
export const base58 = (byteLength: number, explain: Explain = colon): Field<string, Base58Value, string> =>
  field(
    (v, p) => {
      const r = parseBase58(v, byteLength);
      return r.ok ? ok({ text: v as string, bytes: r.value }) : err(explain(p, r.error));
    },
    (s) => s,
  );

/** A Solana public key, base58. */
export const publicKey = (explain: Explain = suffixed("a base58 public key")): Field<string, Base58Value, string> => base58(32, explain);

/** A value the guard accepts, sent as given; `message` is the whole error. */
export const is = <T>(guard: (v: unknown) => v is T, message: (path: string) => string): Field<T, T, T> =>
  field(
    (v, p) => (guard(v) ? ok(v) : err(message(p))),
    (x) => x,
  );

/** A public key, or null (left out reads as null too); `message` is the whole error. */
export const publicKeyOrNull = (message: (path: string) => string): Field<string | null, Base58Value | null, string | null, "optional"> => {
  const check = (v: unknown, p: string): Result<Base58Value | null, string> => {
    if (v === undefined || v === null) return ok(null);
    const r = parseBase58(v, 32);
    return r.ok ? ok({ text: v as string, bytes: r.value }) : err(message(p));
  };
  return Object.assign(decoder(check), { at: check, encode: (k: string | null) => k, presence: "optional" as const });
};

/** A string; `problem` names what it must be. */
export const text = (problem: string): Field<string, string, string> =>
  field(
    (v, p) => (typeof v === "string" ? ok(v) : err(`${p}: ${problem}`)),
    (s) => s,
  );

/** A network name. */
export const network = (message: (path: string) => string = (p) => `${p}: must be mainnet or devnet`): Field<Network, Network, Network> =>
  field(
    (v, p) => (isNetwork(v) ? ok(v) : err(message(p))),
    (n) => n,
  );

/** Amounts are bigint in the SDK; the wire carries JSON numbers, which stay exact only up to 2^53 - 1. */
export type Amount = bigint | number;

/** A JSON number for an amount, refusing values JSON would silently round. */
export function amountToWire(amount: Amount): number {
  const n = typeof amount === "bigint" ? Number(amount) : amount;
  if (!Number.isSafeInteger(n) || n < 0 || (typeof amount === "bigint" && BigInt(n) !== amount)) {
    throw new RangeError(`amount ${amount} is not an integer from 0 to 2^53 - 1`);
  }
  return n;
}

/** A u64 as decimal text: minOut may exceed what a JSON number carries exactly. */
export function u64ToWire(value: Amount, what: string): string {
  const v = typeof value === "number" ? (Number.isSafeInteger(value) ? BigInt(value) : -1n) : value;
  if (v < 0n || v > U64_MAX) throw new RangeError(`${what} ${value} is not an integer from 0 to 2^64 - 1`);
  return v.toString();
}

const DECIMAL = /^(?:0|[1-9][0-9]{0,19})$/;

/**
 * A u64 amount as a JSON number (a safe integer: a larger number already lost
 * precision in JSON) or a decimal string. `positive` refuses zero.
 */
export function parseU64(value: unknown, positive: boolean): Result<bigint, string> {
  let x: bigint;
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return err("must be an integer number of base units");
    if (!Number.isSafeInteger(value)) return err("must be at most 2^53 - 1 as a JSON number (send larger amounts as a decimal string)");
    x = BigInt(value);
  } else if (typeof value === "string") {
    if (!DECIMAL.test(value)) return err("must be a decimal string of base units (digits only, no sign, no leading zeros)");
    x = BigInt(value);
  } else {
    return err("must be an integer (JSON number or decimal string) of base units");
  }
  if (x < 0n) return err("must not be negative");
  if (positive && x === 0n) return err("must be positive");
  if (x > U64_MAX) return err("must fit in a u64");
  return ok(x);
}

/**
 * A u64 the server takes as a JSON number or decimal text; `send` is how the SDK sends it
 * (a JSON number where the spec has one, decimal text, named in its RangeError, where the value may pass 2^53).
 */
export const u64 = (opts: { positive: boolean; send: "number" | { text: string }; explain?: Explain }): Field<number | string, bigint, Amount> => {
  const explain = opts.explain ?? colon;
  const send = opts.send;
  const encode: (a: Amount) => number | string = send === "number" ? amountToWire : (a) => u64ToWire(a, send.text);
  return field((v, p) => {
    const r = parseU64(v, opts.positive);
    return r.ok ? r : err(explain(p, r.error));
  }, encode);
};

/** Text labels (venue names): at most `max` of them, each non-empty, at most `maxLength` characters, without commas; duplicates dropped. */
export const labels = (max: number, maxLength: number): Field<string[], string[], string[]> =>
  field(
    (v, p) => {
      if (!Array.isArray(v) || v.length > max) return err(`${p}: must be an array of at most ${max} exchange labels (empty means all)`);
      for (const [i, d] of v.entries()) {
        if (typeof d !== "string" || d.trim() === "" || d.length > maxLength || d.includes(",")) {
          return err(`${p}[${i}]: must be a non-empty exchange label of at most ${maxLength} characters, without commas`);
        }
      }
      return ok([...new Set(v as string[])]);
    },
    (l) => l,
  );

/** A JSON number that is a safe integer in [min, max]; `message` is the whole error. */
export const safeInteger = (min: number, max: number, message: (path: string) => string): Field<number, number, number> =>
  field(
    (v, p) => (typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max ? ok(v) : err(message(p))),
    (n) => n,
  );

/**
 * Amounts the spec carries as JSON numbers: positive integers no larger than 2^53 - 1, since a
 * bigger number already lost precision in JSON.
 */
export function parseAmount(value: unknown): Result<bigint, string> {
  if (typeof value !== "number" || !Number.isInteger(value)) return err("must be an integer number of base units");
  if (value <= 0) return err("must be positive");
  if (!Number.isSafeInteger(value)) return err("must be at most 2^53 - 1 (larger values lose precision in JSON)");
  return ok(BigInt(value));
}

/** A positive amount as a JSON number (the sandbox's amounts): `<field> <problem>`. */
export const jsonAmount = (explain: Explain = (p, e) => `${p} ${e}`): Field<number, bigint, Amount> =>
  field((v, p) => {
    const r = parseAmount(v);
    return r.ok ? r : err(explain(p, r.error));
  }, amountToWire);

/** A key a body must not carry (a field an older protocol had); the SDK never sends it. */
export function absent(problem: string): Field<undefined, null, undefined, "refused"> {
  const check = (v: unknown, p: string): Result<null, string> => (v === undefined ? ok(null) : err(`${p}: ${problem}`));
  return Object.assign(decoder(check), { at: check, encode: () => undefined, presence: "refused" as const });
}

// ---- bodies ----

/** A request body: its fields in the order they are checked, and the message for a body that is not an object. */
export interface RequestBody<S extends Shape> {
  readonly shape: S;
  readonly notObject: string;
  /** How a missing body (a request sent without one) reads: refused, or as `{}`. */
  readonly absent: "refused" | "empty";
  /** The error name a field's problem is answered with, where it is not InvalidRequest. */
  readonly errors: { readonly [K in keyof S]?: ErrorNameValue };
}

export function requestBody<S extends Shape>(
  shape: S,
  notObject: string,
  opts: { absent?: "refused" | "empty"; errors?: { readonly [K in keyof S]?: ErrorNameValue } } = {},
): RequestBody<S> {
  return { shape, notObject, absent: opts.absent ?? "refused", errors: opts.errors ?? {} };
}

/** Which field is wrong, the error name to answer with, and the message naming the field. */
export interface BodyProblem {
  field: string;
  error: ErrorNameValue;
  message: string;
}

/**
 * Rules that read more than one field (the fee against depositSize) or the server's state: each
 * runs right after its field decodes, with the fields decoded so far, so the order of checks stays
 * the declaration's. A rule answers its whole message, or null.
 */
export type CrossRules<S extends Shape> = { readonly [K in keyof S]?: (decoded: Partial<ParsedOf<{ shape: S }>>) => string | null };

/** Decodes a body field by field in the declared order; the first problem wins. */
export function decodeBody<S extends Shape>(decl: RequestBody<S>, body: unknown, rules: CrossRules<S> = {}): Result<ParsedOf<{ shape: S }>, BodyProblem> {
  const b = body === undefined && decl.absent === "empty" ? {} : body;
  if (!isRecord(b)) return err({ field: "body", error: "InvalidRequest", message: decl.notObject });
  const out: Record<string, unknown> = {};
  // The field is the path the message names: the key, or an element of it (`dexes[1]`).
  const problem = (k: string, message: string): Result<never, BodyProblem> =>
    err({ field: message.startsWith(`${k}[`) ? message.slice(0, message.indexOf("]") + 1) : k, error: decl.errors[k as keyof S] ?? "InvalidRequest", message });
  for (const [k, f] of Object.entries(decl.shape)) {
    if (f.when && !f.when(out)) {
      out[k] = null;
      continue;
    }
    const r = f.at(b[k], k);
    if (!r.ok) return problem(k, r.error);
    out[k] = r.value;
    const broken = rules[k as keyof S]?.(out as Partial<ParsedOf<{ shape: S }>>);
    if (broken) return problem(k, broken);
  }
  return ok(out as ParsedOf<{ shape: S }>);
}

/** The SDK side: the caller's values as the JSON body, keys in the declared order, optional ones left out when not given. */
export function encodeBody<D extends RequestBody<Shape>>(decl: D, input: InputOf<D>): WireOf<D> {
  const given = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(decl.shape)) {
    const v = given[k];
    if (f.presence === "refused" || (f.presence === "optional" && v === undefined)) continue;
    out[k] = f.encode(v);
  }
  return out as WireOf<D>;
}
