import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  annualize,
  fundingStats,
  FUNDING_METRICS,
  median,
  percentileRank,
  stdDevPop,
  toBasis,
  type FundingSample
} from '../../engine/history/funding-stats.js'

const HOUR = 3_600_000
const T0 = Date.UTC(2025, 0, 1)

const series = (rates: readonly number[], intervalHours = 8): FundingSample[] =>
  rates.map((rate, i) => ({ ts: T0 + i * HOUR, rate, intervalHours }))

describe('funding arithmetic', () => {
  it('annualizes per interval and rescales to an 8-hour basis', () => {
    expect(annualize(0.0001, 8)).toBeCloseTo(0.1095, 12) // 3 settlements a day x 365
    expect(annualize(0.0001, 4)).toBeCloseTo(0.219, 12)
    expect(annualize(-0.0001, 1)).toBeCloseTo(-0.876, 12)
    expect(toBasis(0.0001, 1)).toBeCloseTo(0.0008, 12)
    expect(toBasis(0.0001, 4)).toBeCloseTo(0.0002, 12)
    expect(toBasis(0.0001, 8)).toBe(0.0001)
    expect(annualize(0.0001, 0)).toBeNull() // a record without an interval is not annualized
    expect(toBasis(0.0001, 0)).toBeNull()
  })
})

describe('fundingStats against hand-computed values', () => {
  // in units of 1e-4: 1, 3, -2, 5, 3; mean 2; sorted -2 1 3 3 5; deviations -1 1 -4 3 1, squares sum 28
  const s = fundingStats(series([0.0001, 0.0003, -0.0002, 0.0005, 0.0003]), FUNDING_METRICS)

  it('computes the five metrics', () => {
    expect(s.samples).toBe(5)
    expect(s.mean).toBeCloseTo(0.0002, 15)
    expect(s.median).toBe(0.0003)
    expect(s.std_dev).toBeCloseTo(Math.sqrt(28 / 5) * 1e-4, 15) // population: divides by n
    expect(s.min).toBe(-0.0002)
    expect(s.max).toBe(0.0005)
  })

  it('gives the extremes with their hours, the current rate and its percentile rank', () => {
    expect(s.extremes).toEqual({
      max: { rate: 0.0005, timestamp: T0 + 3 * HOUR },
      min: { rate: -0.0002, timestamp: T0 + 2 * HOUR }
    })
    // current 3: four of five samples (1, 3, -2, 3) are at or below it
    expect(s.current).toEqual({
      rate: 0.0003,
      timestamp: T0 + 4 * HOUR,
      interval_hours: 8,
      rate_annualized: 0.0003 * 1095,
      percentile_rank: 80
    })
    expect(s.annualized_mean).toBeCloseTo(0.0002 * 1095, 12)
  })

  it('annualizes each sample by its own interval', () => {
    const mixed: FundingSample[] = [
      { ts: T0, rate: 0.0001, intervalHours: 8 }, // 0.1095 a year
      { ts: T0 + HOUR, rate: 0.0001, intervalHours: 4 }, // 0.219
      { ts: T0 + 2 * HOUR, rate: 0.0001, intervalHours: 1 } // 0.876
    ]
    expect(fundingStats(mixed, []).annualized_mean).toBeCloseTo((0.1095 + 0.219 + 0.876) / 3, 12)
  })

  it('includes only the metrics asked for', () => {
    const only = fundingStats(series([0.0001, 0.0002]), ['median', 'max'])
    expect(Object.keys(only).sort()).toEqual(['annualized_mean', 'current', 'extremes', 'max', 'median', 'samples'])
    expect(only.median).toBeCloseTo(0.00015, 15) // even count: mean of the two middle values
  })

  it('keeps the earliest sample of tied extremes', () => {
    const t = fundingStats(series([0.0002, -0.0001, 0.0002, -0.0001]), ['min', 'max'])
    expect(t.extremes.max).toEqual({ rate: 0.0002, timestamp: T0 })
    expect(t.extremes.min).toEqual({ rate: -0.0001, timestamp: T0 + HOUR })
    expect(t.current?.percentile_rank).toBe(50) // ties count as at or below
  })

  it('answers null, not 0, for an empty window; 0 is a real rate', () => {
    const empty = fundingStats([], FUNDING_METRICS)
    expect(empty).toEqual({
      samples: 0,
      mean: null,
      median: null,
      std_dev: null,
      min: null,
      max: null,
      annualized_mean: null,
      extremes: { max: null, min: null },
      current: null
    })
    const zero = fundingStats(series([0]), FUNDING_METRICS)
    expect(zero).toMatchObject({ mean: 0, median: 0, std_dev: 0, min: 0, max: 0, annualized_mean: 0 })
    expect(zero.current?.percentile_rank).toBe(100)
  })
})

describe('fundingStats properties', () => {
  const rates = fc.array(fc.double({ min: -0.03, max: 0.03, noNaN: true, noDefaultInfinity: true }), {
    minLength: 1,
    maxLength: 200
  })

  it('orders min <= median <= max, mean within them, rank in (0, 100], std_dev >= 0', () => {
    fc.assert(
      fc.property(rates, (xs) => {
        const s = fundingStats(series(xs), FUNDING_METRICS)
        expect(s.min!).toBeLessThanOrEqual(s.median!)
        expect(s.median!).toBeLessThanOrEqual(s.max!)
        expect(s.mean!).toBeGreaterThanOrEqual(s.min! - 1e-15)
        expect(s.mean!).toBeLessThanOrEqual(s.max! + 1e-15)
        expect(s.std_dev!).toBeGreaterThanOrEqual(0)
        expect(s.current!.percentile_rank).toBeGreaterThan(0)
        expect(s.current!.percentile_rank).toBeLessThanOrEqual(100)
        expect(s.extremes.max!.rate).toBe(s.max)
        expect(s.extremes.min!.rate).toBe(s.min)
      }),
      { seed: 4242, numRuns: 500 }
    )
  })

  it('does not depend on the order of the samples (except the current rate)', () => {
    fc.assert(
      fc.property(rates, (xs) => {
        const rev = [...xs].reverse()
        expect(median(rev)).toBe(median(xs))
        expect(stdDevPop(rev)!).toBeCloseTo(stdDevPop(xs)!, 12)
        expect(percentileRank(rev, xs[0]!)).toBe(percentileRank(xs, xs[0]!))
      }),
      { seed: 4243, numRuns: 300 }
    )
  })
})
