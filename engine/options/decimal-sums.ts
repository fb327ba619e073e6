/**
 * @module
 * Rounding of sums for serialization. A sum of binary floating-point numbers carries noise
 * (0.1 + 0.2 = 0.30000000000000004, 1718.5 + 0.1 + 0.1 = 1718.6999999999998). A sum of numbers with at
 * most d decimals has at most d decimals itself, so rounding it to d decimals gives back the exact
 * decimal sum as long as the noise stays below half of the last decimal (true for chain-sized sums).
 */

/**
 * Most decimals a summed coin amount keeps: 1e-8 coin (one satoshi) is finer than any venue's amount step
 * (Deribit BTC options trade in 0.1-coin steps), and also cleans inputs that already carry noise.
 */
export const MAX_AMOUNT_DECIMALS = 8
/** USD sums (max-pain payouts) are given in cents. */
export const USD_DECIMALS = 2

/** Largest integer below which every integer is exact in a double. */
const EXACT_INTEGER_LIMIT = 2 ** 53

/**
 * The fewest decimals, at least `from` and at most MAX_AMOUNT_DECIMALS, with which `x` is exact: `x` is the
 * double nearest to a decimal with that many places (`0.1` → 1, `0.55` → 2, `1718` → `from`). Folding it over
 * the amounts of a sum gives the decimals to round the sum to. Arithmetic only (no string conversion): it
 * runs once per quote on every chain rebuild.
 */
export function widenDecimals(from: number, x: number): number {
  let decimals = from
  while (decimals < MAX_AMOUNT_DECIMALS && roundTo(x, decimals) !== x) decimals++
  return decimals
}

/**
 * `x` rounded to `decimals` (0..22): the double nearest to the decimal, so `JSON.stringify` writes it
 * without noise. Numbers too large to scale exactly are returned unchanged.
 */
export function roundTo(x: number, decimals: number): number {
  const scale = 10 ** decimals
  const scaled = x * scale
  if (!(Math.abs(scaled) < EXACT_INTEGER_LIMIT)) return x
  return Math.round(scaled) / scale
}
