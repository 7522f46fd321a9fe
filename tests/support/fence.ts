import type { Fence } from "../../src-server/ports/coordination";

/** A tree write's fence where the test is the only writer (sql.js ignores it: one process owns the data dir). */
export const TEST_FENCE: Fence = { network: "mainnet", holder: "test", epoch: 1 };
