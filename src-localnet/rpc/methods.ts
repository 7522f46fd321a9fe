/**
 * The JSON-RPC methods of the local validator, answered in the shapes
 * @solana/web3.js v1 validates (RpcResponseAndContext where the real node
 * uses it), plus the test-only `localnet_*` methods. The handlers are grouped
 * in handlers/ (cluster, accounts, transactions, localnet); the way to the
 * leader through the faults is leader.ts.
 */
import type { Keypair } from "@solana/web3.js";
import type { Faults } from "../faults";
import type { Ledger } from "../ledger/ledger";
import { asParams, RpcError } from "./common";
import { accountHandlers } from "./handlers/accounts";
import { clusterHandlers } from "./handlers/cluster";
import { localnetHandlers } from "./handlers/localnet";
import { transactionHandlers } from "./handlers/transactions";
import { Leader } from "./leader";
import { SOLANA_CORE_VERSION, type Handlers, type NodeContext } from "./node-context";

export interface RpcNodeOptions {
  ledger: Ledger;
  faults: Faults;
  faucet: Keypair;
  /** What localnet_status reports about the endpoints. */
  info?: () => Record<string, unknown>;
}

export class RpcNode {
  readonly ledger: Ledger;
  readonly faults: Faults;
  readonly faucet: Keypair;
  private readonly leader: Leader;
  private readonly handlers: Handlers;

  constructor(opts: RpcNodeOptions) {
    this.ledger = opts.ledger;
    this.faults = opts.faults;
    this.faucet = opts.faucet;
    this.leader = new Leader(opts.ledger, opts.faults, opts.faucet);
    const info = opts.info ?? (() => ({}));
    const node: NodeContext = {
      ledger: this.ledger,
      faults: this.faults,
      faucet: this.faucet,
      leader: this.leader,
      reportedSlot: () => this.reportedSlot,
      withContext: (value) => ({ context: { slot: this.reportedSlot, apiVersion: SOLANA_CORE_VERSION }, value }),
      healthError: () => {
        const lag = this.faults.lagSlots;
        return lag > 0 ? new RpcError(-32005, `Node is behind by ${lag} slots`, { numSlotsBehind: lag }) : null;
      },
      info,
    };
    this.handlers = { ...clusterHandlers(node), ...accountHandlers(node), ...transactionHandlers(node), ...localnetHandlers(node) };
  }

  dispose(): void {
    this.leader.dispose();
  }

  get methods(): string[] {
    return Object.keys(this.handlers);
  }

  async call(method: string, params: unknown): Promise<unknown> {
    const handler = Object.hasOwn(this.handlers, method) ? this.handlers[method] : undefined;
    if (!handler) throw new RpcError(-32601, "Method not found");
    const p = asParams(params);
    // Any method's config may carry minContextSlot: a node behind it refuses, as agave does.
    const config = p.find((x): x is { minContextSlot: unknown } => !!x && typeof x === "object" && !Array.isArray(x) && "minContextSlot" in x);
    if (config && typeof config.minContextSlot === "number" && config.minContextSlot > this.reportedSlot) {
      throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: this.reportedSlot });
    }
    return handler(p);
  }

  /** The slot this node reports (behind by lagSlots). */
  get reportedSlot(): number {
    return Math.max(0, this.ledger.slot - this.faults.lagSlots);
  }

  /** Sends lamports from the faucet as a real signed transaction; resolves once it landed. */
  airdrop(address: string, lamports: bigint): Promise<string> {
    return this.leader.airdrop(address, lamports);
  }
}
