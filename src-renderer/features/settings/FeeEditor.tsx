import { useState, type FormEvent } from "react";
import type { AdminSettings } from "../../../src-shared/api/admin";
import { useSetFee } from "../../api/admin-hooks";
import type { Network } from "../../../src-shared/networks";
import { NetworkSelect } from "../../components/NetworkSelect";
import { Select } from "../../components/SelectField";
import { mintLabel } from "../../lib/mints";

const DEFAULT = "*";
const DEFAULT_OPTION = { value: DEFAULT, label: "default (every pool without its own, all networks)" };

/**
 * Changes a pool's fee, or the default of pools without their own, on the
 * running relay (kept across restarts, over the config file's). The replaced
 * fee stays acceptable for the grace period, so proofs in flight still land.
 */
export function FeeEditor({ s }: { s: AdminSettings }) {
  const set = useSetFee();
  const [network, setNetwork] = useState<Network>("mainnet");
  const [target, setTarget] = useState<string>(DEFAULT);
  const [bps, setBps] = useState("");
  const [floor, setFloor] = useState("0");
  const pools = s.networks.find((n) => n.name === network)?.pools ?? [];
  const mint = target === DEFAULT ? null : target;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate({ network, mint, bps: Number(bps), floor: floor.trim() || "0" }, { onSuccess: () => setBps("") });
  };

  return (
    <form onSubmit={submit} aria-label="Change a fee">
      <h3>Change a fee</h3>
      <div className="inline-form">
        <label>
          Network <NetworkSelect value={network} onChange={(n) => (setNetwork(n), setTarget(DEFAULT))} />
        </label>
        <label>
          Pool <Select value={target} options={[DEFAULT_OPTION, ...pools.map((m) => ({ value: m, label: mintLabel(m), title: m }))]} onChange={setTarget} />
        </label>
        <label>
          Rate (bps){" "}
          <input className="input input-small" inputMode="numeric" pattern="[0-9]{1,5}" required value={bps} onChange={(e) => setBps(e.target.value)} />
        </label>
        <label>
          Floor (base units){" "}
          <input className="input input-small" inputMode="numeric" pattern="[0-9]{1,20}" value={floor} onChange={(e) => setFloor(e.target.value)} />
        </label>
        <button type="submit" className="button button-small" disabled={set.isPending}>
          Set fee
        </button>
        <button type="button" className="button button-small" disabled={set.isPending} onClick={() => set.mutate({ network, mint, reset: true })}>
          Back to the config file's
        </button>
      </div>
      {set.error ? (
        <p role="alert" className="field-error">
          {set.error.message}
        </p>
      ) : null}
    </form>
  );
}
