import { sandboxHarness } from "../support/harness";
import { relaySuite } from "./suites/relay.suite";

relaySuite(sandboxHarness);
