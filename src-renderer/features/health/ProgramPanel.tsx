import type { AdminHealth, AdminNetworkProgram } from "../../../src-shared/api/admin";
import { Badge } from "../../components/Badge";
import { CopyValue } from "../../components/CopyValue";
import { Fact, Facts } from "../../components/Facts";
import { Panel } from "../../components/Panel";
import { formatClock } from "../../lib/format";

const short = (hex: string): string => `${hex.slice(0, 16)}…`;

/**
 * Each solana network's deployed pool program against the verifying key (docs/security.md,
 * "The deployed program"): the key's fingerprint, the deployed and expected program hashes,
 * and the ceremony's contributions and beacon. The development key keeps its red banner on
 * every page (Shell.tsx); here it is named as such. A stopped network says why.
 */
export function ProgramPanel({ networks }: { networks: AdminHealth["networks"] }) {
  const checked = networks.flatMap((n) => (n.program ? [{ name: n.name, program: n.program }] : []));
  if (checked.length === 0) return null;
  return (
    <Panel id="program-title" title="Deployed program and verifying key">
      {checked.map(({ name, program }) => (
        <NetworkProgram key={name} name={name} p={program} />
      ))}
    </Panel>
  );
}

function NetworkProgram({ name, p }: { name: string; p: AdminNetworkProgram }) {
  const matches = p.refusal === null && p.programHash === p.expectedHash;
  return (
    <section className="program-network" data-testid={`program-${name}`}>
      <h3>
        {name}{" "}
        {p.refusal ? (
          <Badge tone="bad">relays stopped</Badge>
        ) : matches ? (
          <Badge tone="ok">{p.key === "ceremony" ? "ceremony program" : "development build"}</Badge>
        ) : null}
      </h3>
      {p.refusal ? (
        <div className="banner banner-bad" role="alert" data-testid="program-refusal">
          <span className="banner-icon" aria-hidden="true">
            !
          </span>
          <div>
            <p className="banner-title">The pool program on {name} is not the one the verifying key belongs to</p>
            <p className="banner-body">{p.refusal}</p>
          </div>
        </div>
      ) : null}
      <Facts compact>
        <Fact label="Verifying key" wide title={p.vkeyFingerprint}>
          {p.key === "development" ? <Badge tone="bad">development key (published seed)</Badge> : null}{" "}
          <CopyValue value={p.vkeyFingerprint} label="Key fingerprint" display={short(p.vkeyFingerprint)} />
        </Fact>
        <Fact label="Program hash (deployed)" wide title={p.programHash ?? undefined}>
          {p.programHash ? <CopyValue value={p.programHash} label="Deployed program hash" display={short(p.programHash)} /> : "not read"}
        </Fact>
        <Fact label={p.key === "ceremony" ? "Program hash (ceremony)" : "Program hash (committed build)"} wide title={p.expectedHash}>
          <CopyValue value={p.expectedHash} label="Expected program hash" display={short(p.expectedHash)} />
        </Fact>
        <Fact label="Deployed at slot">{p.deployedSlot ?? "—"}</Fact>
        <Fact label="Upgrade authority" wide small>
          {p.upgradeAuthority ?? "none (immutable)"}
        </Fact>
        {p.ceremony ? (
          <>
            <Fact label="Contributions" title={p.ceremony.contributors.join(", ")}>
              {p.ceremony.contributions}
            </Fact>
            <Fact label="Phase 1" small>
              {p.ceremony.phase1}
            </Fact>
            <Fact label="Beacon" wide small title={p.ceremony.beaconBlockhash ?? undefined}>
              slot {p.ceremony.beaconBlockSlot ?? p.ceremony.beaconSlot} (announced {p.ceremony.beaconSlot})
              {p.ceremony.beaconBlockhash ? `, blockhash ${p.ceremony.beaconBlockhash}` : ""}
            </Fact>
          </>
        ) : null}
        <Fact label="Checked" small>
          {formatClock(p.checkedAt)}
          {p.readError ? <span className="muted fact-note"> (last read failed: {p.readError})</span> : null}
        </Fact>
      </Facts>
    </section>
  );
}
