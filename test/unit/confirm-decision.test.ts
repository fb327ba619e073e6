import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  actionFor,
  CONFIRM_AT,
  confidenceFor,
  confirmationFor,
  HIGH_AT,
  scoreFor,
  sizeMultFor,
  SKIP_AT
} from '../../engine/confirm/decision.js'

const below = (x: number): number => x - 1e-9
const above = (x: number): number => x + 1e-9

describe('action and size_mult thresholds', () => {
  it('uses the documented thresholds 0.25 and -0.15', () => {
    expect(CONFIRM_AT).toBe(0.25)
    expect(SKIP_AT).toBe(-0.15)
  })

  it('switches action exactly at the edges (CONFIRM inclusive at 0.25, SKIP inclusive at -0.15)', () => {
    expect(actionFor(CONFIRM_AT)).toBe('CONFIRM')
    expect(actionFor(below(CONFIRM_AT))).toBe('REDUCE')
    expect(actionFor(above(SKIP_AT))).toBe('REDUCE')
    expect(actionFor(SKIP_AT)).toBe('SKIP')
    expect(actionFor(1)).toBe('CONFIRM')
    expect(actionFor(0)).toBe('REDUCE')
    expect(actionFor(-1)).toBe('SKIP')
  })

  it('sizes 0 for SKIP, 0.25 → 0.75 across REDUCE, 1.0 → 1.5 across CONFIRM', () => {
    expect(sizeMultFor(-1)).toBe(0)
    expect(sizeMultFor(SKIP_AT)).toBe(0)
    expect(sizeMultFor(above(SKIP_AT))).toBeCloseTo(0.25, 6)
    expect(sizeMultFor(0)).toBeCloseTo(0.4375, 12)
    expect(sizeMultFor(below(CONFIRM_AT))).toBeCloseTo(0.75, 6)
    expect(sizeMultFor(CONFIRM_AT)).toBe(1)
    expect(sizeMultFor(0.625)).toBeCloseTo(1.25, 12)
    expect(sizeMultFor(1)).toBe(1.5)
  })

  it('size_mult is in [0, 1.5], non-decreasing in composite, and 0 exactly when SKIP', () => {
    const c = fc.double({ min: -1, max: 1, noNaN: true })
    fc.assert(
      fc.property(c, c, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        expect(sizeMultFor(lo)).toBeLessThanOrEqual(sizeMultFor(hi))
        for (const x of [lo, hi]) {
          expect(sizeMultFor(x)).toBeGreaterThanOrEqual(0)
          expect(sizeMultFor(x)).toBeLessThanOrEqual(1.5)
          expect(sizeMultFor(x) === 0).toBe(actionFor(x) === 'SKIP')
        }
      }),
      { seed: 11, numRuns: 2000 }
    )
  })
})

describe('confidence, confirmation and score', () => {
  it('confidence is HIGH only with |composite| >= 0.5 and 2 of 3 sub-scores of its sign', () => {
    expect(confidenceFor(HIGH_AT, [0.6, 0.4, -0.2])).toBe('HIGH')
    expect(confidenceFor(below(HIGH_AT), [0.6, 0.4, 0.2])).toBe('MEDIUM')
    expect(confidenceFor(0.7, [0.9, -0.1, 0])).toBe('MEDIUM')
    expect(confidenceFor(-0.6, [-0.9, -0.1, 0.5])).toBe('HIGH')
    expect(confidenceFor(-0.6, [-0.9, 0.1, 0.5])).toBe('MEDIUM')
  })

  it('buckets confirmation HIGH >= 0.5 > MEDIUM >= 0.25 > LOW > 0 >= NONE', () => {
    expect(confirmationFor(HIGH_AT)).toBe('HIGH')
    expect(confirmationFor(below(HIGH_AT))).toBe('MEDIUM')
    expect(confirmationFor(CONFIRM_AT)).toBe('MEDIUM')
    expect(confirmationFor(below(CONFIRM_AT))).toBe('LOW')
    expect(confirmationFor(1e-12)).toBe('LOW')
    expect(confirmationFor(0)).toBe('NONE')
    expect(confirmationFor(-0.8)).toBe('NONE')
  })

  it('maps composite to score = (composite + 1) / 2', () => {
    expect(scoreFor(-1)).toBe(0)
    expect(scoreFor(0)).toBe(0.5)
    expect(scoreFor(1)).toBe(1)
    expect(scoreFor(0.5)).toBe(0.75)
  })
})
