import { useEffect, useState, type FormEvent } from "react";
import type { AlertRuleSettings } from "../../../src-shared/api/alerts";
import { useAlerts, useSetAlertRules } from "../../api/alerts";
import { hrefFor } from "../../app/routes";

/** The thresholds the console may change, with their units; an empty field turns a nullable rule off. */
const FIELDS: { key: keyof AlertRuleSettings; label: string; unit: string; nullable: boolean }[] = [
  { key: "feePayerRunwayHours", label: "Fee payer runway below", unit: "hours", nullable: true },
  { key: "indexerLagSec", label: "Indexer behind for more than", unit: "seconds", nullable: true },
  { key: "relayFailurePercent", label: "Relay failures above", unit: "%", nullable: true },
  { key: "relayFailureWindowMin", label: "… over a window of", unit: "minutes", nullable: false },
  { key: "relayFailureMinRelays", label: "… with at least", unit: "relays", nullable: false },
  { key: "healthRedMin", label: "/health red for more than", unit: "minutes", nullable: true },
  { key: "sanctionsAgeHours", label: "Sanctions list older than", unit: "hours", nullable: true },
  { key: "diskFreePercent", label: "Store disk free below", unit: "%", nullable: true },
];

const text = (v: number | null) => (v === null ? "" : String(v));

/**
 * The alert rules' thresholds on the running relay (kept in the store, over
 * the config file's); the relay checks each value as it checks the file and
 * names the one it refuses.
 */
export function AlertRulesEditor() {
  const alerts = useAlerts();
  const set = useSetAlertRules();
  const rules = alerts.data?.rules;
  const [draft, setDraft] = useState<Record<string, string>>({});
  useEffect(() => {
    if (rules) setDraft(Object.fromEntries(FIELDS.map((f) => [f.key, text(rules[f.key])])));
  }, [rules]);
  if (!alerts.data) return null;
  const configRules = alerts.data.configRules;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body: Record<string, number | null> = {};
    for (const f of FIELDS) {
      const v = (draft[f.key] ?? "").trim();
      body[f.key] = v === "" && f.nullable ? null : Number(v);
    }
    set.mutate(body as Partial<AlertRuleSettings>);
  };

  return (
    <section className="panel" aria-labelledby="set-alerts-title">
      <h2 id="set-alerts-title">Alert rules</h2>
      <p className="muted">
        When the relay raises an alert (<a href={hrefFor("alerts")}>Alerts</a>). Leave a field empty to turn its rule off. Changes are kept across restarts,
        over the config file's values (shown on the right).
      </p>
      <form onSubmit={submit} aria-label="Alert rules">
        <table className="table table-compact">
          <tbody>
            {FIELDS.map((f) => (
              <tr key={f.key}>
                <th scope="row">
                  <label htmlFor={`rule-${f.key}`}>{f.label}</label>
                </th>
                <td>
                  <input
                    id={`rule-${f.key}`}
                    className="input input-small"
                    inputMode="decimal"
                    required={!f.nullable}
                    placeholder={f.nullable ? "off" : ""}
                    value={draft[f.key] ?? ""}
                    onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
                  />{" "}
                  {f.unit}
                </td>
                <td className="muted">config: {configRules[f.key] === null ? "off" : `${configRules[f.key]} ${f.unit}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="submit" className="button button-small" disabled={set.isPending}>
          Save alert rules
        </button>
        {set.isSuccess ? (
          <span role="status" className="muted">
            {" "}
            Saved.
          </span>
        ) : null}
      </form>
      {set.error ? (
        <p role="alert" className="field-error">
          {set.error.message}
        </p>
      ) : null}
    </section>
  );
}
