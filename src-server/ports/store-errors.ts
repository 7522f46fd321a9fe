import { ErrorName } from "../../src-shared/errors";
import type { Refusal } from "../core/fault";

/**
 * The database cannot be reached (refused, reset, shut down, timed out). HTTP answers 503 with
 * `Retry-After: 5`: the request may succeed once the database is back, and nothing was decided.
 */
export class StoreUnavailable extends Error {
  override readonly name = "StoreUnavailable";
}

/**
 * A tree write by a chain follower that no longer holds its network's lease (another instance
 * took it over with a higher epoch): the write was refused, so a deposed leader cannot fork the tree.
 */
export class FencedOut extends Error {
  override readonly name = "FencedOut";
}

/**
 * A StoreUnavailable, also one that crossed a boundary (a worker's message, another copy of this
 * module) and kept only its name.
 */
export function isStoreUnavailable(e: unknown): boolean {
  return e instanceof StoreUnavailable || (typeof e === "object" && e !== null && (e as { name?: unknown }).name === "StoreUnavailable");
}

/** How long a client waits before it asks again while the database cannot be reached (Retry-After). */
export const STORE_RETRY_AFTER_SEC = 5;

/**
 * A service's answer while the database cannot be reached: the relay is busy (503), nothing was
 * decided, and the same request may succeed shortly (Retry-After {@link STORE_RETRY_AFTER_SEC}).
 */
export const STORE_UNAVAILABLE: Refusal = {
  fault: "busy",
  error: ErrorName.ServerBusy,
  message: "the relay's database cannot be reached; try again shortly",
  retryAfterSec: STORE_RETRY_AFTER_SEC,
};
