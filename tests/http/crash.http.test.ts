import { afterAll, describe, expect, it } from "vitest";
import { decodeMerkleState } from "../../src-shared/api/public";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { airdrop, depositBody, randomPrecommitment, WSOL } from "../support/sandbox";
import { newWallet, post } from "../support/wallet";

const started: RelayProcess[] = [];
afterAll(async () => {
  for (const r of started) await r.stop().catch(() => {});
  started[0]?.cleanup();
});

describe("crash safety (kill -9)", () => {
  it("keeps every acknowledged deposit in the tree, with the same root, across repeated kill -9 mid-stream", async () => {
    let relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
    started.push(relay);
    const w = newWallet();
    await airdrop(relay.url, w, 1_000_000);
    const acknowledged = new Map<number, number[]>();

    for (let round = 0; round < 3; round++) {
      // Several deposits in flight at once; kill while they are being written.
      let stop = false;
      const writers = Array.from({ length: 4 }, async () => {
        while (!stop) {
          try {
            const r = await post(`${relay.url}/sandbox/deposit`, depositBody(w, randomPrecommitment(), 1));
            if (r.status === 200) {
              // The leaf the pool computed (protocol v2): what the tree must keep.
              const body = r.json as { leafIndex: number; commitment: number[] };
              acknowledged.set(body.leafIndex, body.commitment);
            }
          } catch {
            return; // connection cut by the kill: not acknowledged
          }
        }
      });
      await new Promise((r) => setTimeout(r, 400 + Math.random() * 600));
      await relay.kill9();
      stop = true;
      await Promise.all(writers);

      relay = await startRelay({ RELAY_RATE_LIMITS: "off" }, relay.dataDir);
      started.push(relay);
      const merkle = decodeMerkleState((await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json);
      if (!merkle.ok) throw new Error(`get_merkle: ${merkle.error}`);
      expect(merkle.value.json.nextIndex).toBeGreaterThanOrEqual(acknowledged.size);
      for (const [leafIndex, commitment] of acknowledged) {
        const node = (await post(`${relay.url}/get_node/${WSOL}/32/${2 ** 32 + leafIndex}/mainnet`)).json as { json: { value: number[] } };
        expect(node.json.value, `leaf ${leafIndex} after round ${round}`).toEqual(commitment);
      }
      // The relay's root equals the one rebuilt from its own nodes and the chain's account (no drift).
      const health = await fetch(`${relay.url}/health`);
      expect(health.status).toBe(200);
    }
    expect(acknowledged.size).toBeGreaterThan(5);
  });
});
