import { describe, expect, it } from "vitest";
import { redactUrl } from "./redact-url";

describe("redactUrl (origin only)", () => {
  it.each([
    ["https://mainnet.helius-rpc.com/?api-key=abc", "https://mainnet.helius-rpc.com/…"],
    ["https://solana-mainnet.g.alchemy.com/v2/KEY123", "https://solana-mainnet.g.alchemy.com/…"],
    ["https://user:pass@my-rpc.example.com/", "https://my-rpc.example.com"],
    ["https://my-rpc.example.com#frag", "https://my-rpc.example.com/…"],
    ["http://127.0.0.1:8899", "http://127.0.0.1:8899"],
    ["wss://my-rpc.example.com/ws/KEY", "wss://my-rpc.example.com/…"],
    ["not a url", "(not a URL)"],
  ])("%s → %s", (input, shown) => {
    expect(redactUrl(input)).toBe(shown);
  });
});
