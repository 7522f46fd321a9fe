import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { AdminCluster, AdminInstance } from "../../../src-shared/api/admin";
import { heartbeatAge, InstancesPanel } from "./InstancesPanel";

const AT = 1_700_000_000_000;
const instance = (host: string, pid: number, id: string, over: Partial<AdminInstance> = {}): AdminInstance => ({
  id,
  host,
  pid,
  version: "1.4.0",
  startedAt: AT - 3_600_000,
  heartbeatAt: AT - 400,
  self: false,
  follows: [],
  ...over,
});
const render = (cluster: AdminCluster, networks: ("mainnet" | "devnet")[] = ["mainnet", "devnet"]) =>
  renderToStaticMarkup(createElement(InstancesPanel, { cluster, networks, at: AT }));

describe("the Health page's instances panel", () => {
  it("says in one line that the embedded sql.js store has one instance, this one", () => {
    const self = instance("relay-box", 4242, "0f1e2d3c-aaaa-bbbb-cccc-1234567890ab", { self: true, follows: ["mainnet"] });
    const html = render({
      engine: "sqljs",
      self: self.id,
      instances: [self],
      leases: [{ network: "mainnet", holder: self.id, epoch: 1, leaseUntil: AT + 4_000 }],
    });
    expect(html).toContain("One instance (embedded sql.js store)");
    expect(html).toContain("relay-box");
    expect(html).toContain("pid 4242");
    expect(html).toContain("567890ab");
    expect(html).toContain("this instance");
    expect(html).not.toContain("<table");
  });

  it("lists each PostgreSQL instance with its version, heartbeat age (late ones flagged) and networks, and who follows each network", () => {
    const a = instance("host-a", 11, "host-a:11:aaaa1111", { self: true, follows: ["mainnet"] });
    const b = instance("host-b", 22, "host-b:22:bbbb2222", { version: "1.4.1", heartbeatAt: AT - 7_200 });
    const html = render({
      engine: "postgres",
      self: a.id,
      instances: [a, b],
      leases: [
        { network: "devnet", holder: "host-c:33:cccc3333", epoch: 4, leaseUntil: AT - 2_000 },
        { network: "mainnet", holder: a.id, epoch: 3, leaseUntil: AT + 4_000 },
      ],
    });
    expect(html).toContain("Instances (2 on PostgreSQL)");
    expect(html).toMatch(/data-instance="host-a:11:aaaa1111" data-self="true"/);
    expect(html).toContain("1.4.1");
    expect(html).toContain("0 s ago");
    expect(html).toContain('<span class="badge badge-warn">7 s ago</span>');
    expect(html).toContain("no network");
    expect(html).toMatch(/<strong>mainnet<\/strong>: followed by host-a pid 11 \(aaaa1111\) \(this instance\), epoch 3, lease until/);
    expect(html).toMatch(
      /<strong>devnet<\/strong>: <span class="badge badge-warn">no follower<\/span> the lease of cccc3333, no longer running \(epoch 4\) ran out/,
    );
  });

  it("names a network nobody has followed yet", () => {
    const a = instance("host-a", 11, "host-a:11:aaaa1111", { self: true });
    expect(render({ engine: "postgres", self: a.id, instances: [a], leases: [] }, ["devnet"])).toContain(
      '<strong>devnet</strong>: <span class="muted">no instance has followed it yet</span>',
    );
  });

  it("counts heartbeat ages in seconds, then as the console says ages", () => {
    expect(heartbeatAge(AT - 999, AT)).toBe("0 s ago");
    expect(heartbeatAge(AT - 59_000, AT)).toBe("59 s ago");
    expect(heartbeatAge(AT - 5 * 60_000, AT)).toBe("5 min ago");
    expect(heartbeatAge(AT + 2_000, AT)).toBe("0 s ago");
  });
});
