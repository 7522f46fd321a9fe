import { describe, expect, it } from "vitest";
import { configFile } from "../support/compliance";
import { startRelay } from "../support/relay-process";

/**
 * A solana network does not start on the development verifying key (published seed) unless
 * that network allows it (docs/security.md, "Development verifying key"). The check runs
 * before the RPC is asked anything, so an unreachable RPC URL is enough here; the banner of
 * an allowed network is e2e/devkey-banner.e2e.ts.
 */
describe("a solana network on the development verifying key", () => {
  const startFails = async (config: unknown): Promise<string> => {
    try {
      const relay = await startRelay({ RELAY_CONFIG: configFile(config) });
      await relay.stop();
      relay.cleanup();
      throw new Error(`the relay started:\n${relay.output()}`);
    } catch (e) {
      return (e as Error).message;
    }
  };

  it("refuses to start (exit 2), naming the network, the setting and the key file", async () => {
    const message = await startFails({ networks: { devnet: { backend: "solana", rpcUrl: "http://127.0.0.1:9" } } });
    expect(message).toContain("relay exited with 2 before listening");
    expect(message).toMatch(
      /config networks\.devnet\.allowDevelopmentVerifyingKey: is not set, and the solana network devnet would verify proofs with the development verifying key \S*resources\/zk\/verification_key\.json/,
    );
    expect(message).toContain('published seed "private-withdrawal-relay-dev-v3"');
    expect(message).not.toContain("    at "); // a message, not a stack trace
  });

  it("gets past the check when the network allows it (and then fails only on the unreachable RPC)", async () => {
    const message = await startFails({ networks: { devnet: { backend: "solana", rpcUrl: "http://127.0.0.1:9", allowDevelopmentVerifyingKey: true } } });
    expect(message).not.toContain("allowDevelopmentVerifyingKey: is not set");
    expect(message).toContain("WARNING: devnet (solana) verifies proofs with the DEVELOPMENT verifying key");
    expect(message).toMatch(/devnet/);
  });

  it("refuses a setting that is not true or false", async () => {
    const message = await startFails({ networks: { devnet: { allowDevelopmentVerifyingKey: "yes please" } } });
    expect(message).toContain("config networks.devnet.allowDevelopmentVerifyingKey: must be true/false");
  });
});
