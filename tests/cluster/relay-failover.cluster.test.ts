import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminRelayDetail, AdminRelayPage } from "../../src-shared/api/admin";
import { login, startClusterEnv, type Cluster, type ClusterEnv, type Instance } from "../support/cluster";
import { waitFor } from "../support/compliance";
import { prepareWithdrawal, testRecipient } from "../support/proofs";
import { USDC } from "../support/sandbox";
import { newWallet, type TestWallet } from "../support/wallet";

/**
 * A relay whose instance dies between sending the transaction and its verdict (issue 27; DESIGN
 * §12; docs/scale-out.md, "An instance dies"): another instance's sweep resolves the orphaned
 * row from the chain, so the relay ends landed exactly once, with its record in the store.
 */
let env: ClusterEnv;
let c: Cluster;
let depositor: TestWallet;
let token: string;

beforeAll(async () => {
  env = await startClusterEnv();
  c = await env.cluster({ env: { RELAY_RATE_LIMITS: "off" } });
  depositor = newWallet();
  await c.instances[0]!.chain.fund(depositor, 100_000_000, USDC);
  token = await login(c.instances[0]!, depositor);
});
afterAll(async () => {
  env?.net.validator.faults.clear();
  await env?.close();
});

describe("an instance killed with a relay in flight", () => {
  it("leaves the relay landed exactly once: the survivor's sweep marks its record confirmed with the sent signature, and the nullifier stays locked", async () => {
    // The holder is the instance that does not follow the chain: its death leaves the tree's writer running.
    const follower = (await c.waitForFollower()).instance;
    const holder: Instance = c.instances.find((x) => x !== follower)!;
    const survivor = follower;
    const w = await prepareWithdrawal(holder.url, depositor, USDC, {
      recipient: testRecipient("cluster-relay-failover"),
      amount: 1_000_000,
      chain: holder.chain,
    });
    const nullifierHash = Buffer.from(w.body.nullifierHash).toString("hex");
    const recipientBefore = await holder.chain.balance(w.body.recipient, USDC);
    const vaultBefore = await holder.chain.vaultBalance(USDC);

    // The transaction lands 100 slots (5 s) after the validator received it: time to kill its sender first.
    env.net.validator.faults.set({ landDelaySlots: 100 });
    let pending: AdminRelayDetail;
    try {
      const answer = holder.post("/relay", w.body, { "x-api-auth": token }).then(
        (r) => `answered ${r.status} ${r.text}`,
        (e: unknown) => `no answer: ${(e as Error).message}`,
      );
      // The record, seen through the other instance, once it carries a signed attempt.
      pending = await waitFor(
        "the relay's record with an attempt",
        async () => {
          const page = await survivor.admin<AdminRelayPage>("/relays?network=mainnet&limit=20");
          const item = page.body.items.find((r) => r.nullifierHash === nullifierHash);
          if (!item) return null;
          const detail = await survivor.admin<AdminRelayDetail>(`/relays/${item.id}`);
          return detail.body.attempts.length > 0 ? detail.body : null;
        },
        20_000,
        50,
      );
      // The attempt is stored before it is sent; the send follows within milliseconds (and is rebroadcast every 300 ms).
      await new Promise((r) => setTimeout(r, 1_500));
      await holder.kill9();
      expect(await answer).toMatch(/^no answer/);
    } finally {
      env.net.validator.faults.set({ landDelaySlots: 0 });
    }
    expect(pending.status).not.toBe("confirmed");
    expect(pending.status).not.toBe("failed");
    const sent = pending.attempts.map((a) => a.signature);

    const final = await waitFor(
      "the survivor's sweep to resolve the relay",
      async () => {
        const d = await survivor.admin<AdminRelayDetail>(`/relays/${pending.id}`);
        return d.body.status === "confirmed" || d.body.status === "failed" ? d.body : null;
      },
      45_000,
      250,
    );
    expect(final.status, JSON.stringify(final)).toBe("confirmed");
    expect(sent).toContain(final.signature);

    // Landed once: one payout, one record holding the nullifier, and the nullifier stays locked.
    expect((await survivor.chain.balance(w.body.recipient, USDC)) - recipientBefore).toBe(1_000_000n - w.terms.fee);
    expect(vaultBefore - (await survivor.chain.vaultBalance(USDC))).toBe(1_000_000n);
    const rows = await c.query<{ id: string; status: string }>("SELECT id, status FROM relays WHERE nullifier_hash = $1", [nullifierHash]);
    expect(rows).toEqual([{ id: pending.id, status: "confirmed" }]);
    const again = await survivor.post("/relay", w.body, { "x-api-auth": token });
    expect(again.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });

    // Back on its data dir, the killed instance shows the same record.
    await holder.start();
    const seen = await holder.admin<AdminRelayDetail>(`/relays/${pending.id}`);
    expect(seen.body.status).toBe("confirmed");
    expect(seen.body.signature).toBe(final.signature);
  });
});
