import type { AdminAnonymitySet, AdminPoolSummary } from "../../../src-shared/api/admin";
import { DataTable, type Column } from "../../components/DataTable";
import { formatCount } from "../../lib/format";
import { formatAmount } from "../../lib/mints";

function columns(mint: string, leaves: number): readonly Column<AdminAnonymitySet>[] {
  return [
    { header: "Withdrawal of", rowHeader: true, cell: (s) => formatAmount(s.amount, mint) },
    {
      header: "Notes that could cover it",
      numeric: true,
      title: (s) => `${formatCount(s.deposits)} deposits of at least this amount, and every change leaf`,
      cell: (s) => formatCount(s.notes),
    },
    {
      header: "",
      className: "anon-bar-cell",
      // The share of the pool's leaves a withdrawal of this amount hides among.
      cell: (s) => <span className="anon-bar" style={{ width: `${leaves > 0 ? Math.max(2, (s.notes / leaves) * 100) : 0}%` }} aria-hidden="true" />,
    },
  ];
}

/**
 * Protocol v3's anonymity sets of a pool: for each standard amount, how many notes could
 * pay a withdrawal of it. A change leaf's value is private, so it could cover any amount;
 * a deposit's amount is public, so only deposits of at least the amount count.
 */
export function AnonymitySets({ pool, where }: { pool: AdminPoolSummary; where: string }) {
  const { leaves } = pool;
  const known = leaves.deposits - leaves.depositsOfUnknownAmount + leaves.changes;
  return (
    <section className="anon-sets" aria-label={`Anonymity sets of ${where}`} data-testid="anonymity-sets">
      <h4>Anonymity set per standard amount</h4>
      {leaves.anonymitySets.length === 0 ? (
        <p className="muted anon-note">
          {leaves.depositsOfUnknownAmount > 0
            ? `No deposit of known amount: ${formatCount(leaves.depositsOfUnknownAmount)} deposits indexed before protocol v3 have no recorded amount.`
            : "No deposit yet: a withdrawal would hide among no other note."}
        </p>
      ) : (
        <>
          <DataTable
            columns={columns(pool.mint, known)}
            rows={leaves.anonymitySets}
            rowKey={(s) => s.amount}
            rowData={(s) => ({ "data-amount": s.amount, "data-notes": String(s.notes) })}
            compact
          />
          <p className="muted anon-note">
            Standard amounts (1, 2 and 5 × 10<sup>k</sup> base units) from {formatAmount(leaves.standardFloor, pool.mint)} to the largest deposit
            {leaves.largestDeposit !== null ? ` (${formatAmount(leaves.largestDeposit, pool.mint)})` : ""}. A note counts when it could hold the amount: a
            deposit of at least that amount, or any change leaf, whose value is private.
            {leaves.depositsOfUnknownAmount > 0
              ? ` ${formatCount(leaves.depositsOfUnknownAmount)} deposits indexed before protocol v3 have no recorded amount and count in no set.`
              : ""}
          </p>
        </>
      )}
    </section>
  );
}
