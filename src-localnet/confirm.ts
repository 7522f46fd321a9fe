import type { Connection } from "@solana/web3.js";

/**
 * Waits until `signature` is confirmed by polling getSignatureStatuses.
 * Tests and the demo use this instead of web3.js's confirmTransaction, which
 * opens a websocket and, after it resolves, checks the status once more
 * without handling an error: a fault switched on right after would surface as
 * an unhandled rejection.
 */
export async function confirmSignature(connection: Connection, signature: string, lastValidBlockHeight: number, pollMs = 25): Promise<void> {
  for (;;) {
    const status = (await connection.getSignatureStatuses([signature])).value[0];
    if (status?.err) throw new Error(`transaction ${signature} failed: ${JSON.stringify(status.err)}`);
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") return;
    if ((await connection.getBlockHeight("confirmed")) > lastValidBlockHeight) throw new Error(`transaction ${signature} expired`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
