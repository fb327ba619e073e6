import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { maxPain, maxPainBruteForce, payoutAt, type StrikeOi } from '../../engine/options/max-pain.js'

/** strikes from a small grid so duplicates are common; OI often zero */
function chainArb(oi: fc.Arbitrary<number>): fc.Arbitrary<StrikeOi[]> {
  const row = fc.record({
    strike: fc.integer({ min: 1, max: 60 }).map((i) => i * 1000),
    callOi: fc.oneof(fc.constant(0), oi),
    putOi: fc.oneof(fc.constant(0), oi)
  })
  return fc.array(row, { minLength: 1, maxLength: 90 }).filter((rows) => new Set(rows.map((r) => r.strike)).size <= 60)
}

function expectSame(rows: readonly StrikeOi[]): void {
  const fast = maxPain(rows)!
  const slow = maxPainBruteForce(rows)!
  expect(fast.strike).toBe(slow.strike)
  expect(Math.abs(fast.payout - slow.payout)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(slow.payout)))
}

describe('maxPain', () => {
  it('matches a hand-computed example, duplicate rows summed', () => {
    // payout(90) = 10×4 + 20×8 = 200; payout(100) = 10×10 + 10×8 = 180; payout(110) = 20×10 + 10×5 = 250
    const rows: StrikeOi[] = [
      { strike: 110, callOi: 1, putOi: 8 },
      { strike: 90, callOi: 6, putOi: 2 },
      { strike: 100, callOi: 5, putOi: 4 },
      { strike: 90, callOi: 4, putOi: 0 }
    ]
    expect(maxPain(rows)).toEqual({ strike: 100, payout: 180 })
    expect(maxPainBruteForce(rows)).toEqual({ strike: 100, payout: 180 })
    expect([90, 100, 110].map((k) => payoutAt(rows, k))).toEqual([200, 180, 250])
  })

  it('breaks an exact tie toward the lower strike', () => {
    // payout(100) = 100 × 1 (put at 200) = 100; payout(200) = 100 × 1 (call at 100) = 100
    const rows: StrikeOi[] = [
      { strike: 200, callOi: 0, putOi: 1 },
      { strike: 100, callOi: 1, putOi: 0 }
    ]
    expect(maxPain(rows)).toEqual({ strike: 100, payout: 100 })
    expect(maxPainBruteForce(rows)).toEqual({ strike: 100, payout: 100 })
  })

  it('breaks a tie toward the lower strike when the OI is not exact in binary (0.1 coin steps)', () => {
    // payout(1000) = 4000×0.4 = 1600; payout(4000) = 3000×0.3 + 1000×0.4 = 1300; payout(5000) = 4000×0.3 + 1000×0.1 = 1300
    // the prefix sums round 1300 differently at 4000 and 5000, so an exact `<` would pick 5000
    const rows: StrikeOi[] = [
      { strike: 1000, callOi: 0.1, putOi: 0 },
      { strike: 1000, callOi: 0.2, putOi: 0 },
      { strike: 5000, callOi: 0, putOi: 0.2 },
      { strike: 4000, callOi: 0.1, putOi: 0 },
      { strike: 5000, callOi: 0, putOi: 0.2 }
    ]
    expect(maxPain(rows)?.strike).toBe(4000)
    expect(maxPain(rows)?.payout).toBeCloseTo(1300, 9)
    expect(maxPainBruteForce(rows)?.strike).toBe(4000)
  })

  it('is null for no rows and the only strike for one', () => {
    expect(maxPain([])).toBeNull()
    expect(maxPain([{ strike: 5, callOi: 3, putOi: 4 }])).toEqual({ strike: 5, payout: 0 })
  })

  it('does not reorder its input', () => {
    const rows = [
      { strike: 3, callOi: 1, putOi: 0 },
      { strike: 1, callOi: 0, putOi: 1 }
    ]
    maxPain(rows)
    expect(rows.map((r) => r.strike)).toEqual([3, 1])
  })

  it('equals the brute-force definition on random chains with exactly representable OI', () => {
    const quarterCoins = fc.integer({ min: 1, max: 40_000 }).map((q) => q / 4)
    fc.assert(fc.property(chainArb(quarterCoins), expectSame), { seed: 4242, numRuns: 1000 })
  })

  it('finds the exact answer on random chains with OI in 0.1 coin steps (ties frequent, sums inexact in binary)', () => {
    // reference in exact integer arithmetic: OI counted in tenths of a coin
    const tenths = fc.integer({ min: 0, max: 6 })
    const rowArb = fc.record({
      strike: fc.integer({ min: 1, max: 12 }).map((i) => i * 1000),
      callT: tenths,
      putT: tenths
    })
    fc.assert(
      fc.property(fc.array(rowArb, { minLength: 1, maxLength: 20 }), (rows) => {
        const exact = maxPainBruteForce(rows.map((r) => ({ strike: r.strike, callOi: r.callT, putOi: r.putT })))!
        const coins = rows.map((r) => ({ strike: r.strike, callOi: r.callT / 10, putOi: r.putT / 10 }))
        expect(maxPain(coins)?.strike).toBe(exact.strike)
        expect(maxPain(coins)!.payout).toBeCloseTo(exact.payout / 10, 6)
        expectSame(coins)
      }),
      { seed: 777, numRuns: 5000 }
    )
  })

  it('equals the brute-force definition on random chains with arbitrary OI', () => {
    const anyCoins = fc.double({ min: 1e-3, max: 1e4, noNaN: true, noDefaultInfinity: true })
    fc.assert(fc.property(chainArb(anyCoins), expectSame), { seed: 99, numRuns: 1000 })
  })

  it('equals the brute-force definition on full BTC expiries (150 strikes, 8 expiries)', () => {
    let seed = 1
    const rand = (): number => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 500
    const expiries = Array.from({ length: 8 }, () =>
      Array.from({ length: 150 }, (_, i) => ({ strike: 20_000 + i * 1000, callOi: rand(), putOi: rand() }))
    )
    for (const e of expiries) expectSame(e)
  })
})
