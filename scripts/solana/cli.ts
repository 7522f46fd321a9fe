/**
 * What the operator commands of scripts/solana share: the arguments that name
 * a cluster, the pool program, a keypair and pool mints, checked the same way
 * by each, and waiting for a sent transaction to be confirmed.
 */
import type { Connection } from "@solana/web3.js";
import { parsePublicKey } from "../../src-shared/encoding/base58";

export interface PoolCommandArgs {
  rpc: string;
  program: string;
  keypair: string;
  mints: string[];
}

/** The shared arguments, or `fail` (a usage error) naming the first bad one. */
export function checkPoolCommandArgs(
  values: { rpc?: string | undefined; program?: string | undefined; keypair?: string | undefined; mint?: string[] | undefined },
  fail: (message: string) => never,
): PoolCommandArgs {
  if (!values.rpc || !/^https?:\/\//.test(values.rpc)) fail("--rpc must be an http(s) URL");
  if (!values.program || !parsePublicKey(values.program).ok) fail("--program must be the program id (base58)");
  if (!values.keypair) fail("--keypair is required");
  const mints = values.mint ?? [];
  if (mints.length === 0) fail("at least one --mint is required");
  for (const m of mints) if (!parsePublicKey(m).ok) fail(`--mint ${m} is not a base58 public key`);
  return { rpc: values.rpc, program: values.program, keypair: values.keypair, mints };
}

/**
 * Waits until `signature` is confirmed; throws when it failed, or when the
 * chain passed `lastValidBlockHeight` without it (it can no longer land).
 */
export async function confirmed(connection: Connection, signature: string, lastValidBlockHeight: number, pollMs: number): Promise<void> {
  for (;;) {
    const status = (await connection.getSignatureStatuses([signature])).value[0];
    if (status?.err) throw new Error(`transaction ${signature} failed: ${JSON.stringify(status.err)}`);
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") return;
    if ((await connection.getBlockHeight("confirmed")) > lastValidBlockHeight) throw new Error(`transaction ${signature} expired before it landed; run again`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
