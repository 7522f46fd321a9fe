/** @deprecated The models' ledger is a test oracle: import it from src-localnet/test-oracle/test-kit (kept here until programs/cp-swap/cp-swap.test.ts does). */
export { MemoryLedger, address } from "../test-oracle/test-kit";
