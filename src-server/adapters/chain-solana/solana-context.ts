/**
 * What the jobs of one Solana network share (reads, withdrawal and swap
 * submission, deposits and reverts, health): its configuration, RPC, fee
 * payer and landing engine, and the helpers that read a refusal.
 */
import { PublicKey, TransactionInstruction, type Finality } from "@solana/web3.js";
import { Buffer } from "buffer";
import type { Network } from "../../../src-shared/networks";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  poolErrorFromLogs,
  poolErrorFromTransactionError,
  type PoolErrorName,
} from "../../../src-shared/pool-program";
import type { NetworkConfig } from "../../config/schema";
import type { Signer } from "../../../src-shared/node/keypair-file";
import type { LandingEngine, Refusal } from "./landing-engine";
import type { RelayLookupTables } from "./lookup-tables";
import type { SolanaRpc } from "./rpc";

export interface SolanaContext {
  readonly network: Network;
  readonly cfg: NetworkConfig;
  readonly rpc: SolanaRpc;
  /** The fee payer: signs and pays for withdrawals and reverts. */
  readonly signer: Signer;
  readonly programId: string;
  readonly programKey: PublicKey;
  /** The commitment history is read at (getTransaction refuses "processed"). */
  readonly finality: Finality;
  readonly engine: LandingEngine;
  /** The relay's own address lookup tables (solana.lookupTables), checked at start; absent or null: none configured. */
  readonly lookupTables?: RelayLookupTables | null;
  readonly log: (line: string) => void;
  /** Unix seconds (revert rules). */
  readonly nowSec: () => number;
  /** A landed withdrawal's cost (network fee + rent), for the fee payer's runway. */
  noteCost(lamports: number): void;
}

/** An error's first line, at most 160 characters. */
export const short = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 160);

/** Where it was refused (simulation or on chain) and the program error's name, else the raw error. */
export function refusalDetail(out: Refusal, name: PoolErrorName | null): string {
  const where = out.stage === "simulation" ? "simulation refused the transaction" : `transaction ${out.signature} failed on chain`;
  return `${where}: ${name ?? (typeof out.err === "string" ? out.err : JSON.stringify(out.err))}`;
}

/** The pool program's error in a refusal: from the failed instruction of our program, else from the logs. */
export function poolError(ctx: SolanaContext, out: Refusal): PoolErrorName | null {
  return poolErrorFromTransactionError(out.err, (i) => out.programIds[i] === ctx.programId)?.name ?? poolErrorFromLogs(out.logs);
}

/** Lamports sent to a PDA make a system-owned account there; only the program's own account counts. */
export async function programAccountExists(ctx: SolanaContext, address: string): Promise<boolean> {
  const info = await ctx.rpc.getAccountInfo(new PublicKey(address), ctx.cfg.solana.commitment);
  return info !== null && info.owner.equals(ctx.programKey);
}

/** The associated token account program's CreateIdempotent: payer, account, wallet, mint, system program, token program. */
export function createAtaIdempotent(payer: string, ata: string, owner: string, mint: string): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: new PublicKey(payer), isSigner: true, isWritable: true },
      { pubkey: new PublicKey(ata), isSigner: false, isWritable: true },
      { pubkey: new PublicKey(owner), isSigner: false, isWritable: false },
      { pubkey: new PublicKey(mint), isSigner: false, isWritable: false },
      { pubkey: new PublicKey(SYSTEM_PROGRAM_ID), isSigner: false, isWritable: false },
      { pubkey: new PublicKey(TOKEN_PROGRAM_ID), isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]),
  });
}
