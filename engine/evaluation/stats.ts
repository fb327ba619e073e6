/**
 * @module
 * The summary statistics of a set of forward returns (docs/confirm.md, "Evaluation"): count, mean, median,
 * hit rate and a 95% confidence interval of the mean by the normal approximation. Pure and deterministic:
 * the same returns in the same order give the same numbers to the last bit (sums run in the given order).
 */

/** The two-sided 95% quantile of the standard normal distribution. */
export const Z_95 = 1.959963984540054

/** Summary of forward returns; every return is a fraction (0.01 = +1%) of the direction asked. */
export interface ReturnSummary {
  /** returns counted */
  readonly n: number
  /** arithmetic mean, fraction; null when n = 0 */
  readonly mean: number | null
  /** median (the mean of the two middle values when n is even), fraction; null when n = 0 */
  readonly median: number | null
  /** share of returns strictly above 0, in [0, 1]; null when n = 0 */
  readonly hit_rate: number | null
  /**
   * 95% confidence interval of the mean, [low, high], fractions: mean ± 1.96 × s / √n with s the sample
   * standard deviation (n − 1). Null when n < 2. Overlapping horizons (a 24 h return every hour) are
   * correlated, so the interval is narrower than the truth there.
   */
  readonly ci95: readonly [number, number] | null
}

export function median(sorted: readonly number[]): number | null {
  const n = sorted.length
  if (n === 0) return null
  const mid = n >> 1
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function summarize(returns: readonly number[]): ReturnSummary {
  const n = returns.length
  if (n === 0) return { n: 0, mean: null, median: null, hit_rate: null, ci95: null }
  let sum = 0
  let hits = 0
  for (const r of returns) {
    sum += r
    if (r > 0) hits++
  }
  const mean = sum / n
  let ci95: readonly [number, number] | null = null
  if (n >= 2) {
    let ss = 0
    for (const r of returns) ss += (r - mean) * (r - mean)
    const half = (Z_95 * Math.sqrt(ss / (n - 1))) / Math.sqrt(n)
    ci95 = [mean - half, mean + half]
  }
  return { n, mean, median: median([...returns].sort((a, b) => a - b)), hit_rate: hits / n, ci95 }
}
