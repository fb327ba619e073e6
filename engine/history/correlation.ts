/**
 * @module
 * Lagged Pearson correlation of whale net flow and price returns (docs/history-whales.md). Series are
 * aligned on one bucket grid; a missing value is null and drops only the pairs it is part of.
 * - return at bucket t: close[t] / close[t-1] - 1 (adjacent buckets only; null when either close is
 *   missing, so no return spans a gap);
 * - lag k pairs flow at bucket t with the return at bucket t + k (k >= 0: does flow lead price?);
 * - r = Σ(x-x̄)(y-ȳ) / √(Σ(x-x̄)² Σ(y-ȳ)²) over the pairs (two-pass, means first);
 * - null when fewer than MIN_SAMPLES pairs, or when either side is constant (zero variance).
 */

/** Fewest pairs a correlation is computed from: two points always correlate ±1. */
export const MIN_SAMPLES = 3

/** Lags served by the price-correlation endpoint: 0 to 24 buckets. */
export const MAX_LAG = 24

export interface LagCorrelation {
  /** buckets the return trails the flow by */
  readonly lag: number
  /** Pearson r in [-1, 1]; null below MIN_SAMPLES pairs or with a constant side */
  readonly correlation: number | null
  /** pairs with both a flow and a return */
  readonly samples: number
}

/** Pearson correlation of equal-length samples; null as described in the module comment. */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length
  if (n !== ys.length) throw new RangeError(`pearson: ${n} x values but ${ys.length} y values`)
  if (n < MIN_SAMPLES || isConstant(xs) || isConstant(ys)) return null
  let mx = 0
  let my = 0
  for (let i = 0; i < n; i++) {
    mx += xs[i]!
    my += ys[i]!
  }
  mx /= n
  my /= n
  let sxx = 0
  let syy = 0
  let sxy = 0
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx
    const dy = ys[i]! - my
    sxx += dx * dx
    syy += dy * dy
    sxy += dx * dy
  }
  if (sxx === 0 || syy === 0) return null
  const r = sxy / Math.sqrt(sxx * syy)
  // rounding can push |r| a hair past 1 for exactly linear data
  return Math.max(-1, Math.min(1, r))
}

// exact equality, not a tolerance: the mean of n equal floats need not equal them, so sxx alone can be a
// tiny non-zero and give a meaningless r
function isConstant(v: readonly number[]): boolean {
  return v.every((x) => x === v[0])
}

/** Returns of a close series: close[t] / close[t-1] - 1; null at t = 0, across a gap, or from a zero close. */
export function bucketReturns(closes: readonly (number | null)[]): (number | null)[] {
  return closes.map((c, t) => {
    const prev = t > 0 ? closes[t - 1] : null
    return c === null || prev === null || prev === undefined || prev === 0 ? null : c / prev - 1
  })
}

/** Correlation of flow[t] with ret[t + k] for k = 0..maxLag, with the number of pairs at each lag. */
export function lagCorrelations(
  flows: readonly (number | null)[],
  returns: readonly (number | null)[],
  maxLag = MAX_LAG
): LagCorrelation[] {
  const out: LagCorrelation[] = []
  for (let lag = 0; lag <= maxLag; lag++) {
    const xs: number[] = []
    const ys: number[] = []
    for (let t = 0; t + lag < returns.length && t < flows.length; t++) {
      const x = flows[t]
      const y = returns[t + lag]
      if (x === null || x === undefined || y === null || y === undefined) continue
      xs.push(x)
      ys.push(y)
    }
    out.push({ lag, correlation: pearson(xs, ys), samples: xs.length })
  }
  return out
}
