import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import proxyAddr from "proxy-addr";
import type { TrustProxy } from "../../config/schema";

/** Expands an IPv6 address (without zone) into its eight 16-bit groups; null when it is not one. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip;
  const groups: number[] = [];
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) is two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (v4) {
    const o = v4[1]!.split(".").map(Number);
    tail = [(o[0]! << 8) | o[1]!, (o[2]! << 8) | o[3]!];
    text = text.slice(0, -v4[1]!.length);
    if (text.endsWith(":") && !text.endsWith("::")) text = text.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string): number[] => (s === "" ? [] : s.split(":").map((h) => parseInt(h, 16)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - rest.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  groups.push(...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest, ...tail);
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * The key one client is counted under (docs/security.md, "Client address"): an
 * IPv4 address as is (also when the socket reports it IPv4-mapped,
 * `::ffff:1.2.3.4`); an IPv6 address by its /64, the block one subscriber or
 * one host is given, so rotating through addresses of one's own /64 is still
 * one client. Anything else (no address) is one shared key.
 */
export function clientKeyOf(ip: string | undefined): string {
  if (!ip) return "unknown";
  const bare = ip.split("%")[0]!;
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return "unknown";
  const g = ipv6Groups(bare.toLowerCase());
  if (!g) return bare.toLowerCase();
  // IPv4-mapped: the IPv4 address.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.${g[7]! & 0xff}`;
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}

/**
 * The wider block an IPv6 client is also counted under: its /48, the block one
 * site is given (65,536 /64s), so that the /64s of one site share a budget
 * (docs/security.md, "Rate limits"). null for IPv4 (IPv4-mapped included) and
 * for anything that is not an address: the /64 key is all there is.
 */
export function siteKeyOf(ip: string | undefined): string | null {
  if (!ip) return null;
  const bare = ip.split("%")[0]!;
  if (isIP(bare) !== 6) return null;
  const g = ipv6Groups(bare.toLowerCase());
  if (!g || (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff)) return null;
  return `${g
    .slice(0, 3)
    .map((x) => x.toString(16))
    .join(":")}::/48`;
}

/**
 * The client address of a request as Express's `req.ip` gives it under the
 * same `trust proxy` setting (http.trustProxy: false, a hop count, or proxy
 * addresses and ranges), read from Node's own request: reads answered ahead
 * of Express are counted and logged by the same address.
 */
export function clientAddress(trust: TrustProxy): (req: IncomingMessage) => string {
  if (trust === false) return (req) => req.socket.remoteAddress ?? "unknown";
  const trusted = typeof trust === "number" ? (_addr: string, i: number): boolean => i < trust : proxyAddr.compile(trust);
  return (req) => proxyAddr(req, trusted);
}
