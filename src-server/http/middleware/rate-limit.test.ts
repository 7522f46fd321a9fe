import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import { describe, expect, it } from "vitest";
import { defaultConfig, type RateLimitConfig } from "../../config/schema";
import { MemoryLimitCounter } from "../../adapters/limits-memory/memory-limit-counter";
import type { LimitCounter, LimitTake } from "../../ports/limit-counter";
import { RateLimits } from "./rate-limit";

const config = (over: Partial<RateLimitConfig> = {}): RateLimitConfig => {
  const base = defaultConfig("/tmp", "/tmp").rateLimits;
  return { ...base, perEndpoint: { ...base.perEndpoint, is_logged: 3 }, ipv6Per48Multiple: 2, ...over };
};
const request = (ip: string): IncomingMessage => ({ headers: {}, socket: { remoteAddress: ip }, ip }) as unknown as IncomingMessage;
const response = (): ServerResponse & { status?: number } => {
  const res = {
    headers: {} as Record<string, string>,
    setHeader(k: string, v: string) {
      this.headers[k.toLowerCase()] = v;
    },
    writeHead(status: number) {
      (res as { status?: number }).status = status;
    },
    end() {},
  };
  return res as unknown as ServerResponse & { status?: number };
};
const limitsWith = (c: RateLimitConfig, admitted: RequestHandler[] = []): RateLimits =>
  new RateLimits(
    c,
    { ip: (req) => req.socket.remoteAddress ?? "", wallet: () => Promise.resolve(null) },
    new MemoryLimitCounter(),
    3600,
    () => 1_000_000,
    admitted,
  );

describe("RateLimits: IPv6 clients by /64 and by /48", () => {
  it("refuses every /64 of a /48 once the /48 made ipv6Per48Multiple times the limit, and leaves other /48s and IPv4 alone", async () => {
    const admit = limitsWith(config()).admission("is_logged")!;
    // 3 a minute per /64, 6 per /48: two /64s use it up.
    for (let i = 0; i < 3; i++) expect(await admit(request("2001:db8:1:1::1"), response())).toBe(true);
    expect(await admit(request("2001:db8:1:1::2"), response())).toBe(false);
    for (let i = 0; i < 3; i++) expect(await admit(request(`2001:db8:1:2::${i}`), response())).toBe(true);
    const refused = response();
    expect(await admit(request("2001:db8:1:3::1"), refused)).toBe(false);
    expect(refused.status).toBe(429);
    expect(await admit(request("2001:db8:2:1::1"), response())).toBe(true);
    for (let i = 0; i < 3; i++) expect(await admit(request("203.0.113.7"), response())).toBe(true);
    expect(await admit(request("203.0.113.8"), response())).toBe(true);
  });

  it("caps the tokens a /48 is issued at ipv6Per48Multiple times the per-address cap", async () => {
    const limits = limitsWith(config({ tokensPerIpPerHour: 2 }));
    const issue = (ip: string, wallet: string) => limits.tokenGate(request(ip))(wallet);
    for (let i = 0; i < 4; i++) expect(await issue(`2001:db8:1:${i >> 1}::1`, `w${i}`)).toBeNull();
    expect((await issue("2001:db8:1:9::1", "w9"))?.reason).toMatch(/\/48 was issued 4 tokens/);
    expect(await issue("2001:db8:2:9::1", "w9")).toBeNull();
  });
});

describe("RateLimits: one round trip to the counts per request", () => {
  it("sends a request's address, /48 and wallet keys in one take, the address first, and answers its stricter decision", async () => {
    const memory = new MemoryLimitCounter();
    const calls: LimitTake[][] = [];
    const counter: LimitCounter = { take: (keys, now) => (calls.push(keys), memory.take(keys, now)) };
    const limits = new RateLimits(
      config(),
      { ip: (req) => req.socket.remoteAddress ?? "", wallet: () => Promise.resolve("W") },
      counter,
      3600,
      () => 1_000_000,
    );
    const admit = limits.admission("is_logged")!;
    const res = response();
    expect(await admit(request("2001:db8:1:1::1"), res)).toBe(true);
    expect(calls).toEqual([
      [
        { key: "is_logged:ip:2001:db8:1:1::/64", limit: 3, windowMs: 60_000, mode: "take" },
        { key: "is_logged:site:2001:db8:1::/48", limit: 6, windowMs: 60_000, mode: "take-if-first-allowed" },
        { key: "is_logged:w:W", limit: 3, windowMs: 60_000, mode: "take" },
      ],
    ]);
    // The address and the wallet both have two left; the /48 has five.
    expect((res as unknown as { headers: Record<string, string> }).headers["ratelimit-remaining"]).toBe("2");
    expect(limits.stats().find((s) => s.endpoint === "is_logged")).toEqual({ endpoint: "is_logged", hits: 1, refusals: 0 });
  });
});

describe("RateLimits: a request's body is read only once its limit let it on", () => {
  it("runs the admitted stages (the body parser) after the limit, never for a refused request, and alone with limits off", async () => {
    const ran: string[] = [];
    const parser: RequestHandler = (_req, _res, next) => {
      ran.push("parse");
      next();
    };
    const stages = limitsWith(config(), [parser]).middleware("is_logged");
    expect(stages).toHaveLength(2);
    const run = async (ip: string): Promise<boolean> => {
      let reached = false;
      const req = Object.assign(request(ip), { params: {} });
      const step = async (i: number): Promise<void> => {
        if (i === stages.length) return void (reached = true);
        let next: Promise<void> = Promise.resolve();
        await stages[i]!(req as never, response() as never, () => void (next = step(i + 1)));
        await next;
      };
      await step(0);
      return reached;
    };
    for (let i = 0; i < 3; i++) expect(await run("198.51.100.1")).toBe(true);
    expect(await run("198.51.100.1")).toBe(false);
    expect(ran).toEqual(["parse", "parse", "parse"]);
    expect(limitsWith(config({ enabled: false }), [parser]).middleware("is_logged")).toEqual([parser]);
  });
});
