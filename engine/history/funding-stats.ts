/**
 * @module
 * Funding-rate arithmetic and the statistics of `GET /v1/historical/derivatives/funding-stats`, pure
 * (docs/history-funding.md). Rates are decimal fractions per funding interval (0.0001 = 0.01% per
 * settlement); an interval is the market's hours between settlements (1, 4 or 8 on the supported venues).
 */

/** Hours in a 365-day year: annualized = rate x 8760 / interval_hours (no compounding). */
export const HOURS_PER_YEAR = 8760

/** The common basis of comparative rates: most venues settle every 8 hours. */
export const BASIS_HOURS = 8

export const FUNDING_METRICS = ['mean', 'median', 'std_dev', 'min', 'max'] as const
export type FundingMetric = (typeof FUNDING_METRICS)[number]

/** `rate` (per `intervalHours`) as a simple yearly rate; null without a usable interval. */
export function annualize(rate: number, intervalHours: number): number | null {
  return intervalHours > 0 ? (rate * HOURS_PER_YEAR) / intervalHours : null
}

/** `rate` (per `intervalHours`) rescaled to an 8-hour interval, so 1h, 4h and 8h markets compare. */
export function toBasis(rate: number, intervalHours: number): number | null {
  return intervalHours > 0 ? (rate * BASIS_HOURS) / intervalHours : null
}

/** One sample of the hourly series: the last funding reading of an hour. */
export interface FundingSample {
  /** hour start, epoch ms */
  readonly ts: number
  /** decimal fraction per funding interval */
  readonly rate: number
  /** the market's hours between settlements in that hour */
  readonly intervalHours: number
}

export interface RateAt {
  readonly rate: number
  /** the sample's hour start, epoch ms */
  readonly timestamp: number
}

export interface CurrentRate extends RateAt {
  readonly interval_hours: number
  readonly rate_annualized: number | null
  /** percent of the window's samples at or below the current rate, 0 < rank <= 100 */
  readonly percentile_rank: number
}

export interface FundingStats {
  readonly samples: number
  readonly mean?: number | null
  readonly median?: number | null
  readonly std_dev?: number | null
  readonly min?: number | null
  readonly max?: number | null
  /** mean over the samples of rate x 8760 / interval_hours */
  readonly annualized_mean: number | null
  readonly extremes: { readonly max: RateAt | null; readonly min: RateAt | null }
  readonly current: CurrentRate | null
}

export function mean(xs: readonly number[]): number | null {
  if (xs.length === 0) return null
  let s = 0
  for (const x of xs) s += x
  return s / xs.length
}

/** Middle value; the mean of the two middle values when the count is even. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** Population standard deviation (divides by n, two passes); 0 for one value. */
export function stdDevPop(xs: readonly number[]): number | null {
  const m = mean(xs)
  if (m === null) return null
  let ss = 0
  for (const x of xs) ss += (x - m) * (x - m)
  return Math.sqrt(ss / xs.length)
}

/** Percent of `xs` less than or equal to `value`: 100 for the window's maximum, 100/n for a unique minimum. */
export function percentileRank(xs: readonly number[], value: number): number | null {
  if (xs.length === 0) return null
  let atOrBelow = 0
  for (const x of xs) if (x <= value) atOrBelow++
  return (100 * atOrBelow) / xs.length
}

/** The extreme sample by `better`; the earliest one wins ties. */
function extreme(samples: readonly FundingSample[], better: (a: number, b: number) => boolean): RateAt | null {
  let best: FundingSample | undefined
  for (const s of samples) if (best === undefined || better(s.rate, best.rate)) best = s
  return best ? { rate: best.rate, timestamp: best.ts } : null
}

/**
 * Statistics of an hourly series (oldest first); only the `metrics` asked for appear, each null when the
 * series is empty. The current rate is the newest sample.
 */
export function fundingStats(samples: readonly FundingSample[], metrics: readonly FundingMetric[]): FundingStats {
  const rates = samples.map((s) => s.rate)
  const yearly = samples.map((s) => annualize(s.rate, s.intervalHours)).filter((x): x is number => x !== null)
  const extremes = { max: extreme(samples, (a, b) => a > b), min: extreme(samples, (a, b) => a < b) }
  const compute: Readonly<Record<FundingMetric, () => number | null>> = {
    mean: () => mean(rates),
    median: () => median(rates),
    std_dev: () => stdDevPop(rates),
    min: () => extremes.min?.rate ?? null,
    max: () => extremes.max?.rate ?? null
  }
  const chosen: Partial<Record<FundingMetric, number | null>> = {}
  for (const m of FUNDING_METRICS) if (metrics.includes(m)) chosen[m] = compute[m]()
  const last = samples.at(-1)
  return {
    samples: samples.length,
    ...chosen,
    annualized_mean: mean(yearly),
    extremes,
    current: last
      ? {
          rate: last.rate,
          timestamp: last.ts,
          interval_hours: last.intervalHours,
          rate_annualized: annualize(last.rate, last.intervalHours),
          percentile_rank: percentileRank(rates, last.rate)!
        }
      : null
  }
}
