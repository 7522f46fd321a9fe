import { useState, type FormEvent } from "react";
import type { AdminPause, AdminSettings } from "../../../src-shared/api/admin";
import { useSetPause } from "../../api/admin-hooks";
import type { Network } from "../../../src-shared/networks";
import { Badge } from "../../components/Badge";
import { mintLabel } from "../../lib/mints";
import { formatDateTime } from "../../lib/time";
import { TextInput } from "../../components/TextInput";

/** One switch per network and per pool: relays of a paused pool answer 503 RelayPaused with the reason. */
export function PauseSwitches({ settings }: { settings: AdminSettings }) {
  const enabled = settings.networks.filter((n) => n.enabled);
  return (
    <section className="panel" aria-labelledby="pauses-title">
      <h2 id="pauses-title">Pause switches</h2>
      <p className="muted">
        A paused pool refuses new relays with <code>503 RelayPaused</code> and your reason, and <code>/health</code> reports it. Relays already in flight
        finish.
      </p>
      <ul className="switches">
        {enabled.map((n) => (
          <li key={n.name} className="switch-group">
            <Switch network={n.name} mint={null} pause={find(settings.pauses, n.name, null)} />
            <ul className="switches switches-nested">
              {n.pools.map((mint) => (
                <li key={mint}>
                  <Switch network={n.name} mint={mint} pause={find(settings.pauses, n.name, mint)} overridden={Boolean(find(settings.pauses, n.name, null))} />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}

const find = (pauses: AdminPause[], network: Network, mint: string | null) => pauses.find((p) => p.network === network && p.mint === mint);

function Switch({ network, mint, pause, overridden = false }: { network: Network; mint: string | null; pause: AdminPause | undefined; overridden?: boolean }) {
  const set = useSetPause();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  const what = mint ? `${mintLabel(mint)} on ${network}` : `all of ${network}`;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate({ network, mint, paused: true, reason }, { onSuccess: () => (setAsking(false), setReason("")) });
  };

  return (
    <div className="switch" data-switch={mint ? `${network}:${mintLabel(mint)}` : network}>
      <div className="switch-label">
        <span className="switch-name" title={mint ?? undefined}>
          {mint ? mintLabel(mint) : `${network} (every pool)`}
        </span>
        {pause ? (
          <Badge tone="warn" title={`since ${formatDateTime(pause.at)}`}>
            paused: {pause.reason}
          </Badge>
        ) : overridden ? (
          <Badge tone="neutral">paused with the network</Badge>
        ) : (
          <Badge tone="ok">relaying</Badge>
        )}
      </div>
      {pause ? (
        <button type="button" className="button button-small" disabled={set.isPending} onClick={() => set.mutate({ network, mint, paused: false })}>
          Resume {what}
        </button>
      ) : asking ? (
        <form className="inline-form" onSubmit={submit}>
          <TextInput value={reason} onValue={setReason} placeholder="Reason, shown to clients" label={`Reason to pause ${what}`} maxLength={200} autoFocus />
          <button type="submit" className="button button-small button-danger" disabled={set.isPending || reason.trim().length < 3}>
            Pause
          </button>
          <button type="button" className="button button-small" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" className="button button-small" onClick={() => setAsking(true)}>
          Pause {what}…
        </button>
      )}
      {set.error ? (
        <p className="field-error" role="alert">
          {set.error.message}
        </p>
      ) : null}
    </div>
  );
}
