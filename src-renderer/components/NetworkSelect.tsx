import { NETWORKS, type Network } from "../../src-shared/networks";
import { Select, type SelectOption } from "./SelectField";

const NETWORK_OPTIONS: readonly SelectOption<Network>[] = NETWORKS.map((n) => ({ value: n, label: n }));
const ANY_NETWORK_OPTIONS: readonly SelectOption<Network | "">[] = [{ value: "", label: "all" }, ...NETWORK_OPTIONS];

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
  // Only the "all" list offers "", so the value handed back is of the caller's type.
  const pick = onChange as (n: Network | "") => void;
  return <Select<Network | ""> value={value} options={all ? ANY_NETWORK_OPTIONS : NETWORK_OPTIONS} onChange={pick} />;
}
