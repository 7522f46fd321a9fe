import type { HealthCheck } from "../../../src-shared/api/public";
import { Badge } from "../../components/Badge";
import { humanizeName } from "../../lib/format";

/** Failing checks first, then in the relay's order. */
export function ChecksList({ checks }: { checks: HealthCheck[] }) {
  const ordered = [...checks.filter((c) => !c.ok), ...checks.filter((c) => c.ok)];
  return (
    <ul className="checks" aria-label="Health checks">
      {ordered.map((check) => (
        <li key={check.name} className={`check ${check.ok ? "check-ok" : "check-bad"}`} data-check={check.name}>
          <Badge tone={check.ok ? "ok" : "bad"}>{check.ok ? "Pass" : "Fail"}</Badge>
          <div className="check-text">
            <p className="check-name">
              {humanizeName(check.name)} <code className="check-id">{check.name}</code>
            </p>
            {check.detail ? <p className="check-detail">{check.detail}</p> : null}
          </div>
        </li>
      ))}
    </ul>
  );
}
