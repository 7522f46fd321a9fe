import { describe, expect, it } from "vitest";
import type { AlertItem, AlertRuleSettings } from "../../src-shared/api/alerts";
import type { AlertStore } from "../ports/alert-store";
import { AlertService, type AlertNotificationKind, type AlertSources } from "./alerts";
import type { FeePayerStatus } from "../ports/fee-payer-status";

class MemoryAlertStore implements AlertStore {
  items: AlertItem[] = [];
  overrides: Partial<AlertRuleSettings> = {};
  async open() {
    return this.items.filter((a) => a.resolvedAt === null);
  }
  async recent(limit: number) {
    return [...this.items].reverse().slice(0, limit);
  }
  async fire(a: Omit<AlertItem, "id" | "resolvedAt">) {
    const item = { ...a, id: this.items.length + 1, resolvedAt: null };
    this.items.push(item);
    return item;
  }
  async notified(id: number, at: number, summary: string, detail: string) {
    const a = this.items.find((x) => x.id === id)!;
    Object.assign(a, { lastNotifiedAt: at, notifications: a.notifications + 1, summary, detail });
  }
  async resolve(id: number, at: number) {
    const a = this.items.find((x) => x.id === id)!;
    Object.assign(a, { resolvedAt: at, lastNotifiedAt: at, notifications: a.notifications + 1 });
  }
  async ruleOverrides() {
    return this.overrides;
  }
  async setRuleOverrides(o: Partial<AlertRuleSettings>) {
    this.overrides = o;
  }
}

const RULES: AlertRuleSettings = {
  feePayerRunwayHours: 24,
  indexerLagSec: 300,
  relayFailurePercent: 50,
  relayFailureWindowMin: 15,
  relayFailureMinRelays: 4,
  healthRedMin: 5,
  sanctionsAgeHours: 48,
  diskFreePercent: 5,
};

async function setup(store = new MemoryAlertStore()) {
  let t = 1_000_000_000;
  const state = {
    feePayer: { network: "mainnet", lamports: 5_000_000_000n, spentLast24h: 0n, runwayHours: null, checkedAt: 0 } as FeePayerStatus,
    failing: [] as { name: string; detail?: string }[],
    diskFree: 50,
  };
  const sources: AlertSources = {
    feePayers: () => [state.feePayer],
    indexer: () => [],
    failingChecks: async () => state.failing,
    sanctions: () => ({ lastGoodAt: t, source: "resources/sanctions/list.txt" }),
    disk: () => ({ freeBytes: state.diskFree * 1e9, totalBytes: 100e9 }),
  };
  const sent: { kind: AlertNotificationKind; alert: AlertItem }[] = [];
  const service = await AlertService.open({
    store,
    configRules: RULES,
    repeatMin: 60,
    sources,
    notify: (kind, alert) => sent.push({ kind, alert }),
    now: () => t,
  });
  return { service, store, state, sent, advance: (ms: number) => (t += ms), now: () => t };
}

describe("AlertService", () => {
  it("fires once when the fee payer's runway drops under the threshold, repeats on schedule while it lasts, and resolves when it recovers", async () => {
    const s = await setup();
    await s.service.evaluate();
    expect(s.sent).toEqual([]);
    s.state.feePayer = { ...s.state.feePayer, lamports: 0n, runwayHours: 0 };
    await s.service.evaluate();
    s.advance(30 * 60_000);
    await s.service.evaluate();
    expect(s.sent.map((n) => n.kind)).toEqual(["firing"]);
    expect(s.sent[0]!.alert).toMatchObject({ rule: "fee-payer-runway", subject: "mainnet", summary: "Fee payer on mainnet is empty" });
    s.advance(31 * 60_000);
    await s.service.evaluate();
    expect(s.sent.map((n) => n.kind)).toEqual(["firing", "repeat"]);
    s.state.feePayer = { ...s.state.feePayer, lamports: 9_000_000_000n, runwayHours: null };
    await s.service.evaluate();
    expect(s.sent.map((n) => n.kind)).toEqual(["firing", "repeat", "resolved"]);
    expect(s.service.active()).toEqual([]);
    expect(s.store.items[0]).toMatchObject({ resolvedAt: s.now(), notifications: 3 });
  });

  it("keeps an alert open across a restart without firing it again", async () => {
    const first = await setup();
    first.state.diskFree = 1;
    await first.service.evaluate();
    expect(first.sent.map((n) => n.kind)).toEqual(["firing"]);
    const second = await setup(first.store);
    second.state.diskFree = 1;
    await second.service.evaluate();
    expect(second.sent).toEqual([]);
    expect(second.service.active()).toHaveLength(1);
  });

  it("fires /health red only after it stayed red for more than healthRedMin", async () => {
    const s = await setup();
    s.state.failing = [{ name: "chain:mainnet", detail: "unreachable" }];
    await s.service.evaluate();
    s.advance(4 * 60_000);
    await s.service.evaluate();
    expect(s.sent).toEqual([]);
    s.advance(2 * 60_000);
    await s.service.evaluate();
    expect(s.sent.map((n) => [n.kind, n.alert.rule])).toEqual([["firing", "health-red"]]);
    expect(s.sent[0]!.alert.detail).toContain("chain:mainnet (unreachable)");
  });

  it("fires on a relay failure rate over the threshold once enough relays reached a verdict", async () => {
    const s = await setup();
    const verdict = (failed: boolean) =>
      s.service.onRelay({
        id: "x",
        kind: "relay",
        network: "mainnet",
        mint: "m",
        receivedAt: s.now(),
        times: {},
        state: failed ? { kind: "failed", at: s.now(), error: "RelayFailed", detail: "" } : { kind: "confirmed", at: s.now(), signature: "s" },
      });
    verdict(true);
    verdict(true);
    verdict(false);
    await s.service.evaluate();
    expect(s.sent).toEqual([]);
    verdict(true);
    await s.service.evaluate();
    expect(s.sent.map((n) => n.alert.summary)).toEqual(["75% of relays failed in the last 15 min"]);
    s.advance(16 * 60_000);
    await s.service.evaluate();
    expect(s.sent.map((n) => n.kind)).toEqual(["firing", "resolved"]);
  });

  it("resolves a firing alert when the operator turns its rule off, and stores only the changed thresholds", async () => {
    const s = await setup();
    s.state.diskFree = 1;
    await s.service.evaluate();
    await s.service.setRules({ ...RULES, diskFreePercent: null });
    expect(s.store.overrides).toEqual({ diskFreePercent: null });
    await s.service.evaluate();
    expect(s.sent.map((n) => n.kind)).toEqual(["firing", "resolved"]);
    expect(s.service.rules().diskFreePercent).toBeNull();
  });
});
