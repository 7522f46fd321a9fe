import { describe, expect, it } from "vitest";
import { createApiClient } from "../../api/client";
import { revertDeposit } from "./revert-flow";

const SIG = "5".repeat(88);
const wallet = { address: "9mEvcHqYenvuPA1vD2ow92a9dGbfeKY2Xg16j5nMZo3i", signMessage: async (m: Uint8Array) => m.slice(0, 64) };

function relay(answers: Response[]) {
  const calls: string[] = [];
  const api = createApiClient("http://relay", async (url) => {
    calls.push(url.replace("http://relay", ""));
    return answers.shift() ?? new Response("no more answers", { status: 500 });
  });
  return { api, calls };
}

describe("revertDeposit", () => {
  it("logs in, then reverts, answering the revert transaction", async () => {
    const { api, calls } = relay([new Response('{"id":"tok"}'), new Response("REVERTSIG\n")]);
    expect(await revertDeposit(api, wallet, "devnet", ` ${SIG} `)).toEqual({ ok: true, signature: "REVERTSIG" });
    expect(calls).toEqual(["/login", `/revert/devnet/tok/${SIG}`]);
  });

  it("explains the relay's refusals in words", async () => {
    const { api } = relay([new Response('{"id":"tok"}'), new Response('{"error":"NotDepositor","message":"x"}', { status: 403 })]);
    expect(await revertDeposit(api, wallet, "mainnet", SIG)).toMatchObject({
      ok: false,
      title: "Not reverted (NotDepositor)",
      detail: expect.stringMatching(/wallet that made the deposit/),
    });
  });

  it("retries a login refused as a same-second replay once, the next second", async () => {
    let t = 1_700_000_000_900;
    const { api, calls } = relay([new Response('{"error":"Message too old"}', { status: 400 }), new Response('{"id":"tok"}'), new Response("SIG")]);
    const result = await revertDeposit(api, wallet, "mainnet", SIG, () => (t += 100));
    expect(result).toEqual({ ok: true, signature: "SIG" });
    expect(calls).toEqual(["/login", "/login", `/revert/mainnet/tok/${SIG}`]);
  });

  it("refuses what cannot be a transaction signature before asking the wallet", async () => {
    const { api, calls } = relay([]);
    expect(await revertDeposit(api, wallet, "mainnet", "not-a-signature")).toMatchObject({ ok: false, title: "Not a transaction signature" });
    expect(calls).toEqual([]);
  });
});
