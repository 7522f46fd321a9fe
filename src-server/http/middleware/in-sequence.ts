import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * Middlewares run one after another as a single one: the same order and the
 * same `next(error)` behaviour as separate `app.use` calls, without a router
 * layer (path match, parameter handling) for each.
 */
export function inSequence(handlers: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let i = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      const handler = handlers[i++];
      if (!handler) return next();
      try {
        // Express 5 passes a rejected handler's error on; so does this.
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.catch(next);
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
