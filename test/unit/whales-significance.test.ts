import { describe, expect, it } from 'vitest'
import {
  atLeast,
  checkThresholds,
  DEFAULT_THRESHOLDS,
  SIGNIFICANCE_LEVELS,
  significanceOf
} from '../../engine/whales/significance.js'

describe('significanceOf', () => {
  it('starts each level at its threshold, inclusive', () => {
    expect(significanceOf(99_999.99)).toBeNull()
    expect(significanceOf(100_000)).toBe('low')
    expect(significanceOf(499_999.99)).toBe('low')
    expect(significanceOf(500_000)).toBe('medium')
    expect(significanceOf(2_499_999)).toBe('medium')
    expect(significanceOf(2_500_000)).toBe('high')
    expect(significanceOf(9_999_999)).toBe('high')
    expect(significanceOf(10_000_000)).toBe('critical')
    expect(significanceOf(1e12)).toBe('critical')
  })

  it('is null for zero, negative and NaN sizes', () => {
    expect(significanceOf(0)).toBeNull()
    expect(significanceOf(-5_000_000)).toBeNull()
    expect(significanceOf(Number.NaN)).toBeNull()
  })

  it('uses the thresholds given', () => {
    const t = { low: 10, medium: 20, high: 30, critical: 40 }
    expect([9, 10, 20, 30, 40].map((u) => significanceOf(u, t))).toEqual([null, 'low', 'medium', 'high', 'critical'])
  })
})

describe('atLeast', () => {
  it('orders low < medium < high < critical', () => {
    for (const [i, level] of SIGNIFICANCE_LEVELS.entries()) {
      for (const [j, min] of SIGNIFICANCE_LEVELS.entries()) expect(atLeast(level, min)).toBe(i >= j)
    }
  })
})

describe('checkThresholds', () => {
  it('accepts the defaults and rejects out-of-order or non-finite thresholds', () => {
    expect(() => checkThresholds(DEFAULT_THRESHOLDS)).not.toThrow()
    expect(() => checkThresholds({ ...DEFAULT_THRESHOLDS, high: 400_000 })).toThrow(/high/)
    expect(() => checkThresholds({ ...DEFAULT_THRESHOLDS, low: -1 })).toThrow(/low/)
    expect(() => checkThresholds({ ...DEFAULT_THRESHOLDS, critical: Number.POSITIVE_INFINITY })).toThrow(/critical/)
  })
})
