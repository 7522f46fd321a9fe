/**
 * Standard amounts (protocol v3, docs/privacy.md): withdrawals of 1, 2 or 5 ×
 * 10^k base units, at or above a floor, look alike whichever deposit they come
 * from. The SDK splits what a user withdraws into such pieces, and the console
 * shows, for each standard amount, how many notes could cover it (the
 * anonymity set a withdrawal of that amount hides in). One definition for
 * both, so they cannot disagree.
 */

const MANTISSAS = [1n, 2n, 5n] as const;

/**
 * The default floor for a mint of `decimals` decimals: a thousandth of a
 * whole token (1,000 base units for a 6-decimal mint such as USDC, 10^6
 * lamports for SOL), and 1 for a mint of 3 decimals or fewer. Below it a
 * piece's fee would be most of the piece.
 */
export function defaultStandardFloor(decimals: number): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 30) throw new RangeError("decimals must be an integer from 0 to 30");
  return decimals <= 3 ? 1n : 10n ** BigInt(decimals - 3);
}

const isStandard = (x: bigint): boolean => {
  if (x <= 0n) return false;
  let m = x;
  while (m % 10n === 0n) m /= 10n;
  return m === 1n || m === 2n || m === 5n;
};

/** Whether `x` is a standard amount at or above `floor`. */
export function isStandardAmount(x: bigint, floor: bigint): boolean {
  return x >= floor && isStandard(x);
}

/** Every standard amount from `floor` (rounded up to the next standard amount) to `ceiling`, ascending. */
export function standardAmounts(floor: bigint, ceiling: bigint): bigint[] {
  if (floor <= 0n) throw new RangeError("floor must be positive");
  const out: bigint[] = [];
  for (let p = 1n; p <= ceiling; p *= 10n) {
    for (const m of MANTISSAS) {
      const x = m * p;
      if (x >= floor && x <= ceiling) out.push(x);
    }
  }
  return out;
}

/**
 * `total` as standard pieces, largest first, each at least `floor`: the
 * greedy split (fewest pieces for the 1-2-5 series). What is below the
 * smallest standard amount stays as `remainder`, never a non-standard piece.
 */
export function splitIntoStandardAmounts(total: bigint, floor: bigint): { pieces: bigint[]; remainder: bigint } {
  if (total < 0n) throw new RangeError("total must not be negative");
  const ladder = standardAmounts(floor, total).reverse();
  const pieces: bigint[] = [];
  let left = total;
  for (const x of ladder) {
    while (left >= x) {
      pieces.push(x);
      left -= x;
    }
  }
  return { pieces, remainder: left };
}
