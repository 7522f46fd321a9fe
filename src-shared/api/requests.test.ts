import { describe, expect, it } from "vitest";
import { decodeBody, encodeBody } from "./request-fields";
import { leavesRequest, loginRequest, quoteRequest, relayRequest, relaySwapRequest } from "./requests";

const KEY = "So11111111111111111111111111111111111111112";
const withdrawal = {
  nullifierHash: new Uint8Array(32).fill(1),
  proof: new Uint8Array(256),
  root: new Uint8Array(32).fill(2),
  recipient: KEY,
  depositSize: 1_000_000n,
  mint: KEY,
  changeCommitment: new Uint8Array(32).fill(3),
};

describe("request declarations: one shape for the SDK's bodies and the relay's checks", () => {
  it("encodes a withdrawal as the spec's body (depth and network filled in, optional keys left out) and decodes it back", () => {
    const wire = encodeBody(relayRequest, withdrawal);
    expect(wire).toEqual({
      nullifierHash: Array(32).fill(1),
      proof: Array(256).fill(0),
      root: Array(32).fill(2),
      recipient: KEY,
      depth: 32,
      depositSize: 1_000_000,
      mint: KEY,
      network: "mainnet",
      changeCommitment: Array(32).fill(3),
    });
    const back = decodeBody(relayRequest, JSON.parse(JSON.stringify(wire)));
    expect(back.ok && [back.value.depositSize, back.value.fee, back.value.relayer, back.value.mint.text]).toEqual([1_000_000n, null, null, KEY]);
  });

  it("sends minOut as decimal text and refuses amounts JSON cannot carry", () => {
    const { mint: _m, ...rest } = withdrawal;
    expect(encodeBody(relaySwapRequest, { ...rest, input_mint: KEY, output_mint: KEY, minOut: 2n ** 64n - 1n }).minOut).toBe("18446744073709551615");
    expect(() => encodeBody(relayRequest, { ...withdrawal, depositSize: 2n ** 53n })).toThrow(RangeError);
  });

  it("checks fields in the declared order and names the first wrong one", () => {
    const bad = decodeBody(relayRequest, { nullifierHash: [1], proof: "x", depth: 31 });
    expect(!bad.ok && bad.error).toEqual({
      field: "nullifierHash",
      error: "InvalidRequest",
      message: "nullifierHash: wrong length (32 bytes, big-endian, below the field modulus)",
    });
    expect(decodeBody(relayRequest, [1])).toMatchObject({ ok: false, error: { field: "body", message: "body: must be a JSON object" } });
  });

  it("answers a field's own error name, an element's path, and reads a missing body as {} where declared", () => {
    const login = decodeBody(loginRequest, { wallet: KEY, message: 1, signature: "short" });
    expect(!login.ok && login.error).toMatchObject({ field: "signature", error: "Invalid signature" });
    const quote = decodeBody(quoteRequest, { inputMint: KEY, outputMint: KEY, amount: 1, dexes: ["a", ""] });
    expect(!quote.ok && quote.error.field).toBe("dexes[1]");
    expect(decodeBody(leavesRequest, undefined)).toEqual({ ok: true, value: { from: null, limit: null } });
  });
});
