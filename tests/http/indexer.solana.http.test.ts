import { solanaHarness } from "../support/localnet";
import { indexerSuite } from "./suites/indexer.suite";

// The same suite as indexer.http.test.ts, with mainnet bound to `solana` on the local validator.
indexerSuite(solanaHarness);
