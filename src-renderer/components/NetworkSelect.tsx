import { NETWORKS, type Network } from "../../src-shared/networks";

/** The network picker every form and filter uses; `all` adds an empty choice for "every network". */
export function NetworkSelect<All extends boolean = false>({
  value,
  onChange,
  all,
}: {
  value: All extends true ? Network | "" : Network;
  onChange: (n: All extends true ? Network | "" : Network) => void;
  all?: All;
}) {
  return (
    <select className="input" value={value} onChange={(e) => onChange(e.target.value as All extends true ? Network | "" : Network)}>
      {all ? <option value="">all</option> : null}
      {NETWORKS.map((n) => (
        <option key={n} value={n}>
          {n}
        </option>
      ))}
    </select>
  );
}
