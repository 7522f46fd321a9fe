/**
 * The shape of the key table (keys.ts) and the one walk over it that every use shares: the
 * defaults, the file (unknown keys refused, each value checked under its dotted key), the
 * RELAY_* variables, and the list of keys the docs table is printed from.
 */
import { ConfigError } from "./config-error";
import { rejectUnknown, section as fileSection, type Obj } from "./decoders";

/** Where the defaults that depend on the installation come from. */
export interface DefaultsContext {
  dataDir: string;
  resourcesDir: string;
}

/** A RELAY_* variable that sets a key; `parse` turns its text into what the key's decoder takes (default: the text itself). */
export interface EnvBinding {
  readonly name: string;
  readonly parse?: (name: string, text: string) => unknown;
}

/** The default of an optional key the config leaves out unless the file sets it. */
export const ABSENT: unique symbol = Symbol("absent");

/** One key: how its file value is checked, its default, its variable and a line for the docs. */
export interface Setting<V> {
  readonly kind: "setting";
  /** `base` is the value the key has before this one lands (maps merge over their default). */
  readonly decode: (key: string, raw: unknown, base: V) => V;
  readonly default: V | ((ctx: DefaultsContext) => V) | typeof ABSENT;
  /** How the docs table shows the default when the value is not self-explanatory. */
  readonly shownDefault?: string;
  readonly env?: EnvBinding;
  readonly doc: string;
  /** Never printed: describeConfig says only whether it is set. */
  readonly secret?: boolean;
}

/** A value the relay derives (not a file key): it has a default only. */
export interface Derived<V> {
  readonly kind: "derived";
  readonly default: V;
}

/** A group of keys (an object in the file). */
export interface Section<T> {
  readonly kind: "section";
  /** The keys are names (the networks) sharing one declaration: the docs list it once, as this. */
  readonly each?: string;
  readonly keys: { readonly [K in keyof T]-?: Decl<T[K]> };
  /** Keys no longer read: the file may still carry them, each checked by its function. */
  readonly retired?: Readonly<Record<string, (key: string, raw: unknown) => void>>;
  /** Runs before the keys are read, on the section as given (rules across keys that refuse early). */
  readonly before?: (key: string, raw: Obj) => void;
  /** Runs after the keys are read; `given` is the section as the file gave it. */
  readonly after?: (key: string, out: T, given: Obj) => void;
}

/** A section the config holds only when the file gives it (then from the section's defaults). */
export interface OptionalSection<T> {
  readonly kind: "optional";
  readonly section: Section<T>;
  readonly doc: string;
}

export type Decl<V> = Setting<V> | Derived<V> | Section<V> | OptionalSection<NonNullable<V>>;

export function setting<V>(decode: Setting<V>["decode"], dflt: Setting<V>["default"], doc: string, more: Partial<Setting<V>> = {}): Setting<V> {
  return { kind: "setting", decode, default: dflt, doc, ...more };
}

export function group<T>(keys: Section<T>["keys"], more: Omit<Section<T>, "kind" | "keys"> = {}): Section<T> {
  return { kind: "section", keys, ...more };
}

type Node = Decl<unknown>;
const entries = (s: Section<unknown>): [string, Node][] => Object.entries(s.keys as Record<string, Node>);
const join = (key: string, k: string): string => (key ? `${key}.${k}` : k);

/** An optional section's defaults depend on no installation folder. */
const NO_CONTEXT: DefaultsContext = { dataDir: "", resourcesDir: "" };

/** Every key's default, fresh (callers may change the result). */
export function defaultsOf<T>(decl: Section<T>, ctx: DefaultsContext): T {
  const out: Obj = {};
  for (const [k, d] of entries(decl as Section<unknown>)) {
    if (d.kind === "section") out[k] = defaultsOf(d, ctx);
    else if ((d.kind === "setting" || d.kind === "derived") && d.default !== ABSENT) {
      out[k] = typeof d.default === "function" ? (d.default as (c: DefaultsContext) => unknown)(ctx) : structuredClone(d.default);
    }
  }
  return out as T;
}

/** Applies a section of the file over `base`; `given` collects the dotted keys the file set. */
export function applySection<T>(decl: Section<T>, key: string, base: T, raw: unknown, given: Set<string>): T {
  const obj = fileSection(key, raw);
  const fileKeys = entries(decl as Section<unknown>).filter(([, d]) => d.kind !== "derived");
  rejectUnknown(key, obj, [...fileKeys.map(([k]) => k), ...Object.keys(decl.retired ?? {})]);
  decl.before?.(key, obj);
  const out = { ...base } as Obj;
  for (const [k, d] of entries(decl as Section<unknown>)) {
    const at = join(key, k);
    if (d.kind === "section") out[k] = applySection(d, at, out[k], obj[k], given);
    else if (obj[k] === undefined || d.kind === "derived") continue;
    else if (d.kind === "optional") out[k] = applySection(d.section, at, defaultsOf(d.section, NO_CONTEXT), obj[k], given);
    else out[k] = d.decode(at, obj[k], out[k]);
    if (obj[k] !== undefined) given.add(at);
  }
  for (const [k, check] of Object.entries(decl.retired ?? {})) if (obj[k] !== undefined) check(join(key, k), obj[k]);
  decl.after?.(key, out as T, obj);
  return out as T;
}

/** Applies the RELAY_* variables the table binds; a variable's error names the variable. */
export function applyEnv<T>(decl: Section<T>, key: string, cfg: T, env: Readonly<Record<string, string | undefined>>, given: Set<string>): void {
  const out = cfg as Obj;
  for (const [k, d] of entries(decl as Section<unknown>)) {
    if (d.kind === "section") applyEnv(d, join(key, k), out[k], env, given);
    if (d.kind !== "setting" || !d.env) continue;
    const text = env[d.env.name];
    if (text === undefined) continue;
    const raw = d.env.parse ? d.env.parse(d.env.name, text) : text;
    out[k] = d.decode(d.env.name, raw, out[k]);
    given.add(join(key, k));
  }
}

/** One row per key, in table order; a section of names sharing one declaration (`each`) is listed once. */
export interface KeyRow {
  key: string;
  decl: Exclude<Node, Section<unknown> | Derived<unknown>>;
}

export function keyRows<T>(decl: Section<T>, key = ""): KeyRow[] {
  const rows: KeyRow[] = [];
  const all = entries(decl as Section<unknown>);
  for (const [k, d] of decl.each ? all.slice(0, 1) : all) {
    const at = join(key, decl.each ?? k);
    if (d.kind === "section") rows.push(...keyRows(d, at));
    else if (d.kind === "setting") rows.push({ key: at, decl: d });
    else if (d.kind === "optional") rows.push({ key: at, decl: d }, ...keyRows(d.section, at));
  }
  return rows;
}

/** For callers outside the start (the console's Settings): the same walk, its errors handed to `fail`. */
export function applyOrFail<T>(run: () => T, fail: (key: string, problem: string) => never): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof ConfigError) fail(e.key, e.problem);
    throw e;
  }
}
