import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { ADMIN_FAILURES_PER_MINUTE, requireOperator } from "./auth";

const TOKEN = "the-operator-token-0123456789";

/** One request through the guard: its status (0 when it was let through). */
function ask(guard: ReturnType<typeof requireOperator>, authorization?: string): number {
  let status = 0;
  const req = {
    ip: "127.0.0.1",
    socket: { remoteAddress: "127.0.0.1" },
    get: (h: string) => (h.toLowerCase() === "authorization" ? authorization : undefined),
  };
  const res = {
    setHeader() {},
    writeHead(s: number) {
      status = s;
    },
    end() {},
  };
  guard(req as unknown as Request, res as unknown as Response, () => {});
  return status;
}

describe("requireOperator: the sign-in lockout", () => {
  it("does not count requests that carry no token (a web page's <img> sends those): the right token still gets in", () => {
    const guard = requireOperator(
      (t) => t === TOKEN,
      () => 1000,
    );
    for (let i = 0; i < ADMIN_FAILURES_PER_MINUTE * 3; i++) expect(ask(guard)).toBe(401);
    expect(ask(guard, "Basic dXNlcjpwYXNz")).toBe(401);
    expect(ask(guard, `Bearer ${TOKEN}`)).toBe(0);
  });

  it("still counts wrong tokens, and locks the address out after too many", () => {
    const guard = requireOperator(
      (t) => t === TOKEN,
      () => 1000,
    );
    for (let i = 0; i < ADMIN_FAILURES_PER_MINUTE; i++) expect(ask(guard, "Bearer wrong-token")).toBe(401);
    expect(ask(guard, `Bearer ${TOKEN}`)).toBe(429);
  });
});
