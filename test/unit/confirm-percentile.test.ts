import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { percentileRank } from '../../engine/confirm/confirm.js'

describe('percentileRank', () => {
  it('counts values below fully and ties half', () => {
    // 2 below, 1 equal, 1 above: 100 × (2 + 0.5) / 4
    expect(percentileRank(3, [1, 2, 3, 4])).toBe(62.5)
    expect(percentileRank(5, [1, 2, 3, 4])).toBe(100)
    expect(percentileRank(0, [1, 2, 3, 4])).toBe(0)
    expect(percentileRank(7, [7, 7, 7])).toBe(50)
  })

  it('is null for an empty history, a history with no finite value, or a non-finite value', () => {
    expect(percentileRank(1, [])).toBeNull()
    expect(percentileRank(1, [Number.NaN, Number.POSITIVE_INFINITY])).toBeNull()
    expect(percentileRank(Number.NaN, [1, 2])).toBeNull()
  })

  it('ignores non-finite history entries', () => {
    expect(percentileRank(2, [1, Number.NaN, 3, Number.NEGATIVE_INFINITY])).toBe(50)
  })

  it('stays in [0, 100] and never falls as the value rises', () => {
    const history = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 })
    const value = fc.double({ min: -1.5, max: 1.5, noNaN: true })
    fc.assert(
      fc.property(history, value, value, (h, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        const pLo = percentileRank(lo, h)!
        const pHi = percentileRank(hi, h)!
        expect(pLo).toBeGreaterThanOrEqual(0)
        expect(pHi).toBeLessThanOrEqual(100)
        expect(pLo).toBeLessThanOrEqual(pHi)
      }),
      { seed: 31, numRuns: 1000 }
    )
  })
})
