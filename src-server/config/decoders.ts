/**
 * The value checks the key table (keys.ts) is built from. Each takes the key (or the RELAY_*
 * variable) it reads, so its ConfigError names it. Two families keep their historic rules: the
 * lenient ones (`int`, `bool`) also take a numeric string or on/off, as a variable must be; the
 * strict ones (`num`, `strictBool`) of the metrics, alerts and logs sections take JSON numbers and
 * booleans only.
 */
import { isIP } from "node:net";
import path from "node:path";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { checkListUrl } from "../core/compliance/sanctions";
import { isSlippageClass, SLIPPAGE_CLASS_BPS, SLIPPAGE_CLASSES, type PairSlippage } from "../core/swap/slippage";
import { ConfigError } from "./config-error";
import { MIN_OPERATOR_TOKEN_LENGTH } from "./constants";
import type { FeeSetting, TrustProxy } from "./types";

export type Obj = { [k: string]: unknown };
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function int(key: string, v: unknown, min: number, max: number): number {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(key, `must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return n;
}

export function bool(key: string, v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (v === "on" || v === "true" || v === "1") return true;
  if (v === "off" || v === "false" || v === "0") return false;
  throw new ConfigError(key, `must be true/false (or on/off), got ${JSON.stringify(v)}`);
}

export function str(key: string, v: unknown): string {
  if (typeof v !== "string" || v.length === 0) throw new ConfigError(key, "must be a non-empty string");
  return v;
}

/** A file path, resolved against the working directory once. */
export const filePath = (key: string, v: unknown): string => path.resolve(str(key, v));

export function strictBool(key: string, v: unknown): boolean {
  if (typeof v !== "boolean") throw new ConfigError(key, `must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

export function num(key: string, v: unknown, min: number, max: number, integer = true): number {
  if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max) {
    throw new ConfigError(key, `must be ${integer ? "an integer" : "a number"} from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** One of a few words; the message lists them as `"a", "b" or "c"`, and with `got` the value given. */
export function oneOf<W extends string>(words: readonly W[], got = true) {
  const list = words.map((w) => JSON.stringify(w));
  const said = list.length > 1 ? `${list.slice(0, -1).join(", ")} or ${list[list.length - 1]}` : list.join("");
  return (key: string, v: unknown): W => {
    if (!words.includes(v as W)) throw new ConfigError(key, `must be ${said}${got ? `, got ${JSON.stringify(v)}` : ""}`);
    return v as W;
  };
}

export function pubkey(key: string, v: unknown): string {
  const s = str(key, v);
  if (!parsePublicKey(s).ok) throw new ConfigError(key, "must be a base58 public key of 32 bytes");
  return s;
}

/** A list of public keys, each named by its index; `what` is the list's noun in the message. */
export function pubkeys(what: string, opts: { nonEmpty?: boolean; unique?: string } = {}) {
  return (key: string, v: unknown): string[] => {
    if (!Array.isArray(v) || (opts.nonEmpty && v.length === 0)) throw new ConfigError(key, `must be ${what}`);
    const out = v.map((m, i) => pubkey(`${key}[${i}]`, m));
    if (opts.unique && new Set(out).size !== out.length) throw new ConfigError(key, `lists the same ${opts.unique} twice`);
    return out;
  };
}

export function url(key: string, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const s = str(key, v);
  try {
    new URL(s);
  } catch {
    throw new ConfigError(key, `must be a URL, got ${JSON.stringify(s)}`);
  }
  return s;
}

/** An RPC endpoint: the scheme must fit (http(s) for JSON-RPC, ws(s) for subscriptions). */
export function rpcUrl(key: string, v: unknown, schemes: readonly string[]): string | null {
  const s = url(key, v);
  if (s !== null && !schemes.includes(new URL(s).protocol)) throw new ConfigError(key, `must be a ${schemes.join(" or ")} URL`);
  return s;
}

export function rpcUrls(key: string, v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0) throw new ConfigError(key, "must be a non-empty list of http(s) URLs");
  const out = v.map((u, i) => {
    const s = rpcUrl(`${key}[${i}]`, u, ["http:", "https:"]);
    if (s === null) throw new ConfigError(`${key}[${i}]`, "must be an http(s) URL");
    return s;
  });
  if (new Set(out).size !== out.length) throw new ConfigError(key, "lists the same URL twice");
  return out;
}

/** A postgres:// or postgresql:// URL with a host and a database; the message never repeats it (it may hold a password). */
export function postgresUrl(key: string, v: unknown): string {
  const s = str(key, v);
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new ConfigError(key, "must be a postgres://user:password@host:port/database URL");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") throw new ConfigError(key, "must be a postgres:// or postgresql:// URL");
  if (!u.hostname) throw new ConfigError(key, "must name the database's host");
  if (u.pathname.length <= 1) throw new ConfigError(key, "must name the database (postgres://host:port/database)");
  return s;
}

/** DESIGN: production lists come over https; plain http only from a loopback mirror. */
export function listUrl(key: string, v: unknown): string {
  const checked = checkListUrl(str(key, v));
  if (!checked.ok) throw new ConfigError(key, checked.error);
  return checked.value.href;
}

export function lamports(key: string, v: unknown): bigint {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^[0-9]{1,20}$/.test(v)) return BigInt(v);
  throw new ConfigError(key, "must be a non-negative integer number of lamports (number or decimal string)");
}

/** A sandbox pool's minimum deposit (issue 25): base units, as a number or a decimal string. */
export function minimumDeposit(key: string, v: unknown): bigint {
  const n = lamports(key, v);
  if (n < 1n || n > 18_446_744_073_709_551_615n) throw new ConfigError(key, "must be at least 1 and fit a u64 (base units)");
  return n;
}

/** A pool mint's price in lamports per base unit, a decimal string. */
export function lamportsPerUnit(key: string, v: unknown): string {
  if (typeof v !== "string" || !/^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/.test(v)) {
    throw new ConfigError(key, `must be a decimal string (lamports per base unit), got ${JSON.stringify(v)}`);
  }
  return v;
}

export function rejectUnknown(key: string, obj: Obj, known: readonly string[]): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) throw new ConfigError(key ? `${key}.${k}` : k, "is not a known setting");
  }
}

/** A section of the file: absent is empty. */
export function section(key: string, v: unknown): Obj {
  if (v === undefined) return {};
  if (!isObj(v)) throw new ConfigError(key, "must be an object");
  return v;
}

/** An object keyed by mint: each mint a public key, each value checked by `value`, merged over `base`. */
export function perMint<V>(value: (key: string, v: unknown) => V) {
  return (key: string, v: unknown, base: Record<string, V>): Record<string, V> => {
    const out = { ...base };
    for (const [mint, setting] of Object.entries(section(key, v))) {
      pubkey(`${key}.${mint}`, mint);
      out[mint] = value(`${key}.${mint}`, setting);
    }
    return out;
  };
}

export function feeSetting(key: string, v: unknown): FeeSetting {
  if (!isObj(v)) throw new ConfigError(key, "must be an object { bps, floor }");
  rejectUnknown(key, v, ["bps", "floor"]);
  const bps = int(`${key}.bps`, v.bps, 0, 10_000);
  const floorRaw = v.floor ?? "0";
  if (!(typeof floorRaw === "string" && /^[0-9]{1,20}$/.test(floorRaw)) && !(typeof floorRaw === "number" && Number.isSafeInteger(floorRaw) && floorRaw >= 0)) {
    throw new ConfigError(`${key}.floor`, "must be a non-negative integer (base units), as a number or a decimal string");
  }
  return { bps, floor: BigInt(floorRaw) };
}

/** A pair's slippage in the file: a class name, or an integer number of bps. */
export function pairSlippageSetting(key: string, v: unknown): PairSlippage {
  if (isSlippageClass(v)) return { bps: SLIPPAGE_CLASS_BPS[v], class: v };
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 10_000) return { bps: v, class: "custom" };
  throw new ConfigError(key, `must be one of ${SLIPPAGE_CLASSES.join(", ")} or an integer number of bps from 0 to 10000, got ${JSON.stringify(v)}`);
}

export function operatorToken(key: string, v: unknown): string {
  const t = str(key, v);
  if (t.length < MIN_OPERATOR_TOKEN_LENGTH) throw new ConfigError(key, `must be at least ${MIN_OPERATOR_TOKEN_LENGTH} characters, got ${t.length}`);
  return t;
}

/** An API key goes into a header: printable ASCII without spaces. */
export function apiKey(key: string, v: unknown): string | null {
  if (v === null || v === "") return null;
  if (typeof v !== "string" || !/^[\x21-\x7e]{1,512}$/.test(v)) throw new ConfigError(key, "must be printable ASCII without spaces, at most 512 characters");
  return v;
}

/** Host names a loopback-bound relay also answers to (docs/security.md): DNS names or IP literals, no port. */
export function publicHostnames(key: string, v: unknown): string[] {
  if (!Array.isArray(v)) throw new ConfigError(key, "must be an array of host names");
  return v.map((h, i) => {
    const s = str(`${key}[${i}]`, h).trim().toLowerCase();
    const bare = s.startsWith("[") && s.endsWith("]") ? s.slice(1, -1) : s;
    if (bare.length > 253 || !(/^[a-z0-9]([a-z0-9._-]*[a-z0-9])?\.?$/.test(bare) || isIP(bare) !== 0)) {
      throw new ConfigError(`${key}[${i}]`, `must be a host name without scheme or port (e.g. "relay.example.org"), got ${JSON.stringify(h)}`);
    }
    return bare;
  });
}

/**
 * Origins whose requests a relay answers besides its own (docs/security.md, "Cross-site
 * requests"): `http(s)://host[:port]` exactly as a browser sends it in `Origin`, kept in
 * that serialization (lower-case host, no default port, no path).
 */
export function allowedOrigins(key: string, v: unknown): string[] {
  if (!Array.isArray(v)) throw new ConfigError(key, "must be an array of origins");
  return v.map((o, i) => {
    const s = str(`${key}[${i}]`, o).trim();
    let u: URL | null;
    try {
      u = new URL(s);
    } catch {
      u = null;
    }
    const bare = u !== null && (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password && !u.search && !u.hash && u.pathname === "/";
    if (!u || !bare || s.endsWith("?") || s.endsWith("#")) {
      throw new ConfigError(
        `${key}[${i}]`,
        `must be an origin: http(s)://host[:port] without path (e.g. "https://relay.example.org"), got ${JSON.stringify(o)}`,
      );
    }
    return u.origin;
  });
}

/** Names Express knows for address ranges (loopback, link-local, unique-local). */
const NAMED_RANGES = ["loopback", "linklocal", "uniquelocal"];

/**
 * Which proxies are believed (docs/security.md, "Client address"): false, a hop count,
 * or proxy addresses / CIDR ranges. `true` is refused: it would take the client's
 * address from whatever X-Forwarded-For a client sends, so every request could
 * claim a new address and no per-IP limit would hold.
 */
export function trustProxy(key: string, v: unknown): TrustProxy {
  if (v === false || v === 0) return false;
  if (v === true) {
    throw new ConfigError(
      key,
      'true is refused: it believes any X-Forwarded-For a client sends, so every request could claim a new address and per-IP limits would not hold. Give the number of proxies in front of the relay (e.g. 1) or their addresses (e.g. ["10.0.0.5", "10.1.0.0/16"]); false when clients connect directly',
    );
  }
  if (typeof v === "number") return int(key, v, 0, 10);
  if (!Array.isArray(v) || v.length === 0)
    throw new ConfigError(key, "must be false, a number of proxies (1 to 10) or a non-empty list of proxy addresses or CIDR ranges");
  return v.map((entry, i) => {
    const s = str(`${key}[${i}]`, entry).trim();
    if (NAMED_RANGES.includes(s)) return s;
    const [addr, prefix, extra] = s.split("/");
    const family = isIP(addr ?? "");
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || extra !== undefined) {
      throw new ConfigError(
        `${key}[${i}]`,
        `must be an IP address or CIDR range (e.g. "10.0.0.5", "10.1.0.0/16", "fd00::/8") or one of ${NAMED_RANGES.join(", ")}, got ${JSON.stringify(entry)}`,
      );
    }
    return s;
  });
}
