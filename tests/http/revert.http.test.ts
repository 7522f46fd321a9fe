import { sandboxHarness } from "../support/harness";
import { revertSuite } from "./suites/revert.suite";

revertSuite(sandboxHarness);
