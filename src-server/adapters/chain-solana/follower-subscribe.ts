/**
 * Live notifications for the chain follower (services/chain-follower.ts): a
 * `logsSubscribe` on each pool's tree account (every deposit and withdrawal writes it), so a
 * deposit is indexed as soon as its transaction is confirmed instead of at the
 * next poll. web3.js resubscribes by itself after a websocket reconnect; the
 * follower's polling covers notifications lost in between.
 */
import { PublicKey, type Commitment, type Context, type Logs } from "@solana/web3.js";
import { poolTreeAddress } from "../../../src-shared/pool-program";

/** What the subscription needs from an RPC; a web3.js `Connection` satisfies it. */
export interface LogsRpc {
  onLogs(filter: PublicKey, callback: (logs: Logs, ctx: Context) => void, commitment?: Commitment): number;
  removeOnLogsListener(id: number): Promise<void>;
}

/** Calls `onChange` on each successful transaction that touches `mint`'s tree; returns the unsubscribe. */
export type MintSubscribe = (mint: string, onChange: () => void) => () => void;

export function solanaPoolSubscriber(rpc: LogsRpc, opts: { programId: string; commitment?: Commitment; log?: (line: string) => void }): MintSubscribe {
  return (mint, onChange) => {
    const tree = new PublicKey(poolTreeAddress(opts.programId, mint));
    const id = rpc.onLogs(
      tree,
      (logs) => {
        if (!logs.err) onChange();
      },
      opts.commitment ?? "confirmed",
    );
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      rpc.removeOnLogsListener(id).catch((e: unknown) => opts.log?.(`follower: unsubscribing ${mint}: ${(e as Error).message}`));
    };
  };
}
