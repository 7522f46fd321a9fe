import { solanaHarness } from "../support/localnet";
import { revertSuite } from "./suites/revert.suite";

// The same suite as revert.http.test.ts, with mainnet bound to `solana` on the local validator.
revertSuite(solanaHarness);
