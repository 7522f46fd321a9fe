/** Display helpers: pure, no DOM, unit-tested in format.test.ts. */

/** Bytes as lowercase hex with a 0x prefix. */
export function bytesToHex(bytes: readonly number[]): string {
  return "0x" + bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `0x1a2b3c…7d8e9f`: head and tail kept, the middle elided. Short strings pass unchanged. */
export function shortenMiddle(value: string, head = 6, tail = 6): string {
  if (value.length <= head + tail + 1) return value;
  return `${value.slice(0, head)}…${value.slice(-tail)}`;
}

/** A short hex for a 0x-prefixed value: the prefix does not count towards the head. */
export function shortHex(hex: string, head = 6, tail = 6): string {
  return hex.startsWith("0x") ? "0x" + shortenMiddle(hex.slice(2), head, tail) : shortenMiddle(hex, head, tail);
}

/** Uptime in the two largest units: `42 s`, `5 min 3 s`, `2 h 14 min`, `3 d 4 h`. */
export function formatUptime(totalSec: number): string {
  const s = Math.max(0, Math.floor(totalSec));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${sec} s`;
  return `${sec} s`;
}

/** 12345 -> `12,345` (stable across locales so screenshots and tests agree). */
export function formatCount(n: number): string {
  return Math.trunc(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** `14:03:27`, local time. */
export function formatClock(epochMs: number): string {
  const t = new Date(epochMs);
  return [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}

/** `check_name` / `chain.mainnet` -> `Check name` / `Chain mainnet` for headings. */
export function humanizeName(name: string): string {
  const spaced = name
    .replace(/[._:-]+/g, " ")
    .replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`)
    .trim();
  return spaced ? spaced[0]!.toUpperCase() + spaced.slice(1) : name;
}

/** `1 deposit`, `3 deposits`, with the count grouped. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
