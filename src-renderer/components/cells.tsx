import { shortenMiddle } from "../lib/format";
import { mintLabel } from "../lib/mints";

/** A pool as a table shows it: the mint's symbol, then its network in grey. */
export function PoolName({ mint, network }: { mint: string; network: string }) {
  return (
    <>
      {mintLabel(mint)} <span className="muted">{network}</span>
    </>
  );
}

/** An address, hash or signature shortened in the middle, the full value on hover. */
export function Address({ value, edge = 6 }: { value: string; edge?: number }) {
  return <code title={value}>{shortenMiddle(value, edge, edge)}</code>;
}
