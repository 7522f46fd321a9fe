import type { NextFunction, Request, RequestHandler, Response } from "express";
import { describe, expect, it } from "vitest";
import { inSequence } from "./in-sequence";

const req = {} as Request;
const res = {} as Response;

/** Runs the composed middleware and resolves with what it passed to next. */
function run(handlers: RequestHandler[]): Promise<{ error: unknown }> {
  return new Promise((resolve) => {
    const next: NextFunction = (error?: unknown) => resolve({ error });
    inSequence(handlers)(req, res, next);
  });
}

describe("inSequence", () => {
  it("runs the middlewares in order, each after the one before calls next, then calls next once", async () => {
    const order: string[] = [];
    const step =
      (name: string): RequestHandler =>
      (_q, _s, next) => {
        order.push(name);
        setImmediate(() => next());
      };
    expect(await run([step("a"), step("b"), step("c")])).toEqual({ error: undefined });
    expect(order).toEqual(["a", "b", "c"]);
  });

  it("stops at a middleware that answers without calling next", async () => {
    const order: string[] = [];
    const done = run([
      (_q, _s, next) => {
        order.push("a");
        next();
      },
      () => {
        order.push("answers");
      },
      () => {
        order.push("never");
      },
    ]);
    const settled = await Promise.race([done.then(() => "next called"), new Promise((r) => setTimeout(() => r("stopped"), 50))]);
    expect(settled).toBe("stopped");
    expect(order).toEqual(["a", "answers"]);
  });

  it("passes an error given to next, a thrown one and a rejected promise's on to next, skipping the rest", async () => {
    const boom = new Error("boom");
    const never: RequestHandler = () => {
      throw new Error("must not run");
    };
    expect(await run([(_q, _s, next) => next(boom), never])).toEqual({ error: boom });
    expect(
      await run([
        () => {
          throw boom;
        },
        never,
      ]),
    ).toEqual({ error: boom });
    expect(await run([() => Promise.reject(boom), never])).toEqual({ error: boom });
  });
});
