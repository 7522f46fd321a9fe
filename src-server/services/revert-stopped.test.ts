import { describe, expect, it } from "vitest";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import type { ChainBackend } from "../ports/chain";
import type { RevertStore } from "../ports/revert-store";
import { RevertService } from "./revert-service";

describe("reverts on a network the program guard stopped", () => {
  it("are refused 503 RelayPaused with the guard's reason before anything is read, stored or sent", async () => {
    const touched: string[] = [];
    const chain = new Proxy({}, { get: (_t, p) => (touched.push(`chain.${String(p)}`), () => Promise.reject(new Error("unused"))) }) as ChainBackend;
    const store = new Proxy({}, { get: (_t, p) => (touched.push(`store.${String(p)}`), () => Promise.reject(new Error("unused"))) }) as RevertStore;
    const reverts = new RevertService({
      hasher: {} as FieldHasher,
      chains: new Map([["mainnet", chain]]),
      walletOf: () => Promise.resolve("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"),
      store,
      stopped: (n) => (n === "mainnet" ? "relays on mainnet are stopped: the deployed program hashes d…" : null),
    });
    const outcome = await reverts.revert({ network: "mainnet", token: "t", txnSig: "s", body: {} });
    expect(outcome).toEqual({ ok: false, fault: "busy", error: "RelayPaused", message: "relays on mainnet are stopped: the deployed program hashes d…" });
    expect(touched).toEqual([]);
  });
});
