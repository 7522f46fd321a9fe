/**
 * Names the config's types and its key table both need: kept apart from schema.ts so the
 * table (keys.ts) can use them at load time while schema.ts re-exports the table's defaults.
 */

export const DEFAULT_PROGRAM_ID = "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ";
export const WRAPPED_SOL_MINT = "So11111111111111111111111111111111111111112";

export const RATE_LIMITED_ENDPOINTS = [
  "login",
  "is_logged",
  "get_merkle",
  "get_proof",
  "get_node",
  "get_nullifier",
  "get_leaves",
  "relay",
  "relay_swap",
  "revert",
  "get_ofac_signature",
  "jupiter",
  "sandbox",
] as const;

export const ALERT_RULE_KEYS = [
  "feePayerRunwayHours",
  "indexerLagSec",
  "relayFailurePercent",
  "relayFailureWindowMin",
  "relayFailureMinRelays",
  "healthRedMin",
  "sanctionsAgeHours",
  "diskFreePercent",
] as const;

/** An operator token guards the admin API and console: long enough that guessing it is not a plan. */
export const MIN_OPERATOR_TOKEN_LENGTH = 24;
