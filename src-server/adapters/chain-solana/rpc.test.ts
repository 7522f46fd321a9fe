import { describe, expect, it } from "vitest";
import { parseHistoryTransaction } from "./rpc";

describe("parseHistoryTransaction (the backfill's raw getTransaction)", () => {
  it("reads slot, error and logs and ignores the rest of the answer", () => {
    const logs = ["Program X invoke [1]", "Program data: AAAA", "Program X success"];
    expect(parseHistoryTransaction({ slot: 42, blockTime: 1, transaction: ["...", "base64"], meta: { err: null, fee: 5000, logMessages: logs } })).toEqual({
      slot: 42,
      meta: { err: null, logMessages: logs },
    });
    expect(parseHistoryTransaction({ slot: 7, meta: { err: { InstructionError: [0, { Custom: 6002 }] }, logMessages: [] } })).toEqual({
      slot: 7,
      meta: { err: { InstructionError: [0, { Custom: 6002 }] }, logMessages: [] },
    });
  });

  it("answers null for a transaction the node does not have (yet), and a null meta as such", () => {
    expect(parseHistoryTransaction(null)).toBeNull();
    expect(parseHistoryTransaction({ slot: 3, meta: null })).toEqual({ slot: 3, meta: null });
  });

  it("keeps a node without logs visible as logMessages null (the reader refuses it by name)", () => {
    expect(parseHistoryTransaction({ slot: 3, meta: { err: null } })).toEqual({ slot: 3, meta: { err: null, logMessages: null } });
  });

  it.each([
    ["a string", "tx"],
    ["no slot", { meta: { err: null, logMessages: [] } }],
    ["a fractional slot", { slot: 1.5, meta: null }],
    ["a meta that is a number", { slot: 1, meta: 5 }],
    ["logs that are not strings", { slot: 1, meta: { err: null, logMessages: [1, 2] } }],
  ])("refuses %s with an error naming getTransaction", (_n, result) => {
    expect(() => parseHistoryTransaction(result)).toThrow(/^getTransaction: /);
  });
});
