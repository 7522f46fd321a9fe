import { solanaHarness } from "../support/localnet";
import { relaySuite } from "./suites/relay.suite";

// The same suite as relay.http.test.ts, with mainnet bound to `solana` on the local validator.
relaySuite(solanaHarness);
