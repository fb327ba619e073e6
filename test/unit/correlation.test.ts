import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bucketReturns, lagCorrelations, MAX_LAG, pearson } from '../../engine/history/correlation.js'

/** Textbook one-pass formula, written independently: (nΣxy − ΣxΣy) / √((nΣx² − (Σx)²)(nΣy² − (Σy)²)). */
function naivePearson(xs: number[], ys: number[]): number {
  const n = xs.length
  let sx = 0
  let sy = 0
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    sx += xs[i]!
    sy += ys[i]!
    sxy += xs[i]! * ys[i]!
    sxx += xs[i]! ** 2
    syy += ys[i]! ** 2
  }
  return (n * sxy - sx * sy) / Math.sqrt((n * sxx - sx ** 2) * (n * syy - sy ** 2))
}

describe('pearson', () => {
  it('matches a hand computation', () => {
    // x̄ = 3, ȳ = 4; Σdxdy = 6, Σdx² = 10, Σdy² = 6 -> r = 6 / √60
    expect(pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5])).toBeCloseTo(6 / Math.sqrt(60), 15)
    expect(pearson([1, 2, 3], [3, 2, 1])).toBe(-1)
    expect(pearson([1, 2, 3, 4], [10, 20, 30, 40])).toBe(1)
  })

  it('is null below 3 samples and when either side is constant', () => {
    expect(pearson([], [])).toBeNull()
    expect(pearson([1, 2], [2, 1])).toBeNull()
    expect(pearson([5, 5, 5], [1, 2, 3])).toBeNull()
    expect(pearson([1, 2, 3], [0, 0, 0])).toBeNull()
    // the mean of three 0.1s is not 0.1 in floating point: constancy is checked exactly, not via the variance
    expect(pearson([0.1, 0.1, 0.1], [1, 2, 3])).toBeNull()
  })

  it('rejects samples of different lengths', () => {
    expect(() => pearson([1, 2, 3], [1, 2])).toThrow(RangeError)
  })

  const samples = fc
    .array(
      fc.tuple(
        fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
        fc.double({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true })
      ),
      { minLength: 3, maxLength: 60 }
    )
    .map((pairs) => ({ xs: pairs.map((p) => p[0]), ys: pairs.map((p) => p[1]) }))
    // well-spread samples, where the one-pass formula is itself accurate enough to compare with
    .filter(({ xs, ys }) => spread(xs) > 1 && spread(ys) > 1e-3)

  it('agrees with the one-pass formula, stays in [-1, 1], and is symmetric (seed 7101)', () => {
    fc.assert(
      fc.property(samples, ({ xs, ys }) => {
        const r = pearson(xs, ys)!
        expect(r).not.toBeNull()
        expect(Math.abs(r - naivePearson(xs, ys))).toBeLessThan(1e-6)
        expect(Math.abs(r)).toBeLessThanOrEqual(1)
        expect(pearson(ys, xs)).toBeCloseTo(r, 12)
      }),
      { seed: 7101, numRuns: 2000 }
    )
  })

  it('is unchanged by positive affine maps and flips sign under negation (seed 7102)', () => {
    fc.assert(
      fc.property(samples, fc.double({ min: 0.01, max: 100, noNaN: true }), ({ xs, ys }, a) => {
        const r = pearson(xs, ys)!
        expect(
          pearson(
            xs.map((x) => a * x + 3),
            ys
          )
        ).toBeCloseTo(r, 8)
        expect(
          pearson(
            xs.map((x) => -x),
            ys
          )
        ).toBeCloseTo(-r, 12)
      }),
      { seed: 7102, numRuns: 1000 }
    )
  })
})

function spread(v: number[]): number {
  return Math.max(...v) - Math.min(...v)
}

describe('bucketReturns', () => {
  it('divides adjacent closes and never spans a gap', () => {
    const r = bucketReturns([100, 110, null, 121, 121, 0, 5])
    expect(r[0]).toBeNull()
    expect(r[1]).toBeCloseTo(0.1, 15)
    expect(r[2]).toBeNull()
    expect(r[3]).toBeNull() // previous close missing: no return over two buckets
    expect(r[4]).toBe(0)
    expect(r[5]).toBe(-1)
    expect(r[6]).toBeNull() // from a zero close
  })
})

describe('lagCorrelations', () => {
  it('pairs flow at t with the return at t + lag and counts the pairs', () => {
    const flows = [1, 3, 2, 5, 4, 6, null, 7]
    // returns repeat the flows two buckets later (scaled): lag 2 correlates exactly
    const returns = [null, null, 0.01, 0.03, 0.02, 0.05, 0.04, 0.06]
    const out = lagCorrelations(flows, returns, 3)
    expect(out.map((l) => l.lag)).toEqual([0, 1, 2, 3])
    expect(out[2]).toEqual({ lag: 2, correlation: 1, samples: 6 })
    // lag 0: t = 2..5 and 7 have both sides (t = 6 has no flow)
    expect(out[0]!.samples).toBe(5)
    expect(out[0]!.correlation).toBeCloseTo(pearson([2, 5, 4, 6, 7], [0.01, 0.03, 0.02, 0.05, 0.06])!, 15)
    // lag 3: flow t = 0..4 with return t = 3..7
    expect(out[3]!.samples).toBe(5)
  })

  it('serves lags 0 to 24 by default, null where samples run out', () => {
    const flows = Array.from({ length: 26 }, (_, i) => Math.sin(i))
    const returns = Array.from({ length: 26 }, (_, i) => Math.cos(i * 1.3))
    const out = lagCorrelations(flows, returns)
    expect(out).toHaveLength(MAX_LAG + 1)
    expect(out.map((l) => l.samples)).toEqual(Array.from({ length: 25 }, (_, lag) => 26 - lag))
    expect(out[24]).toEqual({ lag: 24, correlation: null, samples: 2 })
    expect(out[23]!.correlation).not.toBeNull()
  })

  it('agrees with a brute-force pairing over random gappy series (seed 7103)', () => {
    const value = fc.option(fc.double({ min: -100, max: 100, noNaN: true, noDefaultInfinity: true }), {
      freq: 4,
      nil: null
    })
    fc.assert(
      fc.property(fc.array(value, { maxLength: 40 }), fc.array(value, { maxLength: 40 }), (flows, returns) => {
        const out = lagCorrelations(flows, returns, 5)
        for (const { lag, correlation, samples } of out) {
          const xs: number[] = []
          const ys: number[] = []
          flows.forEach((x, t) => {
            const y = returns[t + lag]
            if (x !== null && y !== null && y !== undefined) {
              xs.push(x)
              ys.push(y)
            }
          })
          expect(samples).toBe(xs.length)
          expect(correlation).toBe(pearson(xs, ys))
        }
      }),
      { seed: 7103, numRuns: 1000 }
    )
  })
})
