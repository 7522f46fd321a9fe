import type { AdminCluster, AdminFollowerLease, AdminInstance } from "../../../src-shared/api/admin";
import type { Network } from "../../../src-shared/networks";
import { Badge } from "../../components/Badge";
import { DataTable, type Column } from "../../components/DataTable";
import { Panel } from "../../components/Panel";
import { formatClock } from "../../lib/format";
import { formatAgo, formatDateTime } from "../../lib/time";

/** A heartbeat older than this is late: instances beat every second, and one silent 10 s is taken for gone. */
export const LATE_HEARTBEAT_MS = 5_000;

/** The end of an instance id: the random part of it on both engines, enough to tell two apart. */
export const shortId = (id: string): string => id.slice(-8);

/** `0 s ago`, `7 s ago`: heartbeats come every second, so seconds count here; past a minute as formatAgo says it. */
export function heartbeatAge(heartbeatAt: number, at: number): string {
  const ms = Math.max(0, at - heartbeatAt);
  return ms < 60_000 ? `${Math.floor(ms / 1000)} s ago` : formatAgo(heartbeatAt, at);
}

function InstanceName({ i }: { i: AdminInstance }) {
  return (
    <>
      {i.host} <span className="muted">pid {i.pid}</span> <code title={i.id}>{shortId(i.id)}</code>
      {i.self ? (
        <>
          {" "}
          <Badge tone="neutral">this instance</Badge>
        </>
      ) : null}
    </>
  );
}

const columns = (at: number): readonly Column<AdminInstance>[] => [
  { header: "Instance", rowHeader: true, title: (i) => i.id, cell: (i) => <InstanceName i={i} /> },
  { header: "Version", cell: (i) => i.version },
  { header: "Started", cell: (i) => formatDateTime(i.startedAt) },
  {
    header: "Last heartbeat",
    title: (i) => formatDateTime(i.heartbeatAt),
    cell: (i) => (at - i.heartbeatAt > LATE_HEARTBEAT_MS ? <Badge tone="warn">{heartbeatAge(i.heartbeatAt, at)}</Badge> : heartbeatAge(i.heartbeatAt, at)),
  },
  { header: "Follows", cell: (i) => (i.follows.length > 0 ? i.follows.join(", ") : <span className="muted">no network</span>) },
];

/** Who follows one network's chain: the lease's holder while it runs, else that nobody does until another instance takes it. */
function LeaseLine({
  network,
  lease,
  instances,
  at,
}: {
  network: Network;
  lease: AdminFollowerLease | undefined;
  instances: readonly AdminInstance[];
  at: number;
}) {
  if (!lease) {
    return (
      <li data-network={network}>
        <strong>{network}</strong>: <span className="muted">no instance has followed it yet</span>
      </li>
    );
  }
  const holder = instances.find((i) => i.id === lease.holder);
  const who = holder ? `${holder.host} pid ${holder.pid} (${shortId(holder.id)})` : `${shortId(lease.holder)}, no longer running`;
  const running = lease.leaseUntil > at;
  return (
    <li data-network={network}>
      <strong>{network}</strong>:{" "}
      {running ? (
        <>
          followed by {who}
          {holder?.self ? " (this instance)" : ""}, epoch {lease.epoch}, lease until {formatClock(lease.leaseUntil)}
        </>
      ) : (
        <>
          <Badge tone="warn">no follower</Badge> the lease of {who} (epoch {lease.epoch}) ran out at {formatClock(lease.leaseUntil)}; another instance takes it
          with epoch {lease.epoch + 1}
        </>
      )}
    </li>
  );
}

/**
 * The relay instances sharing the store (docs/scale-out.md) and which one follows each network's
 * chain. `at` is when the answer arrived: ages are counted to it, not to the next render.
 */
export function InstancesPanel({ cluster, networks, at }: { cluster: AdminCluster; networks: readonly Network[]; at: number }) {
  if (cluster.engine === "sqljs") {
    const self = cluster.instances.find((i) => i.self);
    return (
      <Panel id="instances-title" title="Instances" testId="instances-panel">
        <p className="instances-single">
          One instance (embedded sql.js store)
          {self ? (
            <>
              : <InstanceName i={self} />, started {formatDateTime(self.startedAt)}
            </>
          ) : null}
        </p>
      </Panel>
    );
  }
  const leased = new Map(cluster.leases.map((l) => [l.network, l]));
  const shown = [...new Set([...networks, ...leased.keys()])];
  return (
    <Panel id="instances-title" title={`Instances (${cluster.instances.length} on PostgreSQL)`} testId="instances-panel">
      <DataTable
        columns={columns(at)}
        rows={cluster.instances}
        rowKey={(i) => i.id}
        rowData={(i) => ({ "data-instance": i.id, "data-self": i.self ? "true" : undefined })}
        compact
        testId="instances"
      />
      <ul className="lease-list" aria-label="Chain followers">
        {shown.map((n) => (
          <LeaseLine key={n} network={n} lease={leased.get(n)} instances={cluster.instances} at={at} />
        ))}
      </ul>
    </Panel>
  );
}
