import { sandboxHarness } from "../support/harness";
import { indexerSuite } from "./suites/indexer.suite";

indexerSuite(sandboxHarness);
