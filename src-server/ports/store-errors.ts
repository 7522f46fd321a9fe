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
