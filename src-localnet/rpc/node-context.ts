/** What the JSON-RPC method handlers see of the node they answer for. */
import type { Keypair } from "@solana/web3.js";
import type { Faults } from "../faults";
import type { Ledger } from "../ledger/ledger";
import type { Params, RpcError } from "./common";
import type { Leader } from "./leader";

export const SOLANA_CORE_VERSION = "2.1.21";
export const FEATURE_SET = 1725507508;

export type Handler = (params: Params) => unknown;
export type Handlers = Record<string, Handler>;

export interface NodeContext {
  readonly ledger: Ledger;
  readonly faults: Faults;
  readonly faucet: Keypair;
  readonly leader: Leader;
  /** The slot this node reports (behind by lagSlots). */
  reportedSlot(): number;
  /** An RpcResponseAndContext at the reported slot. */
  withContext<T>(value: T): { context: { slot: number; apiVersion: string }; value: T };
  /** The error a node behind by lagSlots answers health checks (and preflights) with; null when healthy. */
  healthError(): RpcError | null;
  /** What localnet_status reports about the endpoints. */
  info(): Record<string, unknown>;
}
