import { describe, expect, it } from "vitest";
import { httpStatus, rejectedRelaysAnswer } from "./status";

describe("httpStatus: the one map from a service's fault to the spec's status", () => {
  it("gives each fault its status", () => {
    expect((["client", "unauthorized", "forbidden", "rate-limited", "server", "upstream", "busy"] as const).map((f) => [f, httpStatus(f)])).toEqual([
      ["client", 400],
      ["unauthorized", 401],
      ["forbidden", 403],
      ["rate-limited", 429],
      ["server", 500],
      ["upstream", 502],
      ["busy", 503],
    ]);
  });

  it("answers a rejected relay with the status it was refused with, in the admin API's shape", () => {
    const item = { at: 1, kind: "relay" as const, network: "mainnet" as const, mint: "m", fault: "busy" as const, error: "ServerBusy", detail: "d" };
    expect(rejectedRelaysAnswer({ since: 0, total: 1, counts: { ServerBusy: 1 }, kept: 300, items: [item] }).items).toEqual([
      { at: 1, kind: "relay", network: "mainnet", mint: "m", status: 503, error: "ServerBusy", detail: "d" },
    ]);
  });
});
