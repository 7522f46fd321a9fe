/**
 * The cp-swap venue's client side (cp-swap-client.ts), and, for the cp-swap
 * program's differential test until it imports it from the test oracle, the
 * TypeScript model. The validator itself imports cp-swap-client.ts.
 */
export * from "./cp-swap-client";
/** @deprecated A test oracle: import it from src-localnet/test-oracle/cp-swap. */
export { CpSwapProgram, CP_SWAP_UNITS } from "../test-oracle/cp-swap";
