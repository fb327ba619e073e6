import { describe, it, expect } from 'vitest'
import { bucketStarts, ceilTo, floorTo, isWholeMultiple, minus, parseSpan, plus } from '../../engine/history/span.js'
import { findGaps } from '../../engine/history/envelope.js'
import { parseDate, resolveRange } from '../../engine/history/range.js'
import { PLANS } from '../../engine/access/plans.js'

const at = (iso: string) => Date.parse(iso)

describe('spans', () => {
  it('parses count and unit, refusing anything else with the parameter named', () => {
    expect(parseSpan('90m', 'lookback')).toEqual({ n: 90, unit: 'm' })
    expect(parseSpan('6M', 'lookback')).toEqual({ n: 6, unit: 'M' })
    for (const bad of ['', '0d', '1.5h', 'd', '3 d', '1D', '-1d', '1000000d']) {
      expect(() => parseSpan(bad, 'lookback'), bad).toThrow(/lookback must be a count and a unit/)
    }
  })

  it('moves by calendar months, clamping the day to the month length', () => {
    expect(minus(at('2026-03-31T10:00:00Z'), { n: 1, unit: 'M' })).toBe(at('2026-02-28T10:00:00Z'))
    expect(plus(at('2024-01-31T00:00:00Z'), { n: 1, unit: 'M' })).toBe(at('2024-02-29T00:00:00Z'))
    expect(minus(at('2026-11-22T00:00:00Z'), { n: 2, unit: 'y' })).toBe(at('2024-11-22T00:00:00Z'))
    expect(minus(at('2026-11-22T00:00:00Z'), { n: 2, unit: 'w' })).toBe(at('2026-11-08T00:00:00Z'))
  })

  it('aligns buckets: epoch multiples, weeks on Monday, months from January 1970', () => {
    const t = at('2026-11-22T13:07:00Z') // a Sunday
    expect(floorTo(t, { n: 5, unit: 'm' })).toBe(at('2026-11-22T13:05:00Z'))
    expect(floorTo(t, { n: 12, unit: 'h' })).toBe(at('2026-11-22T12:00:00Z'))
    expect(floorTo(t, { n: 3, unit: 'd' })).toBe(at('2026-11-21T00:00:00Z'))
    expect(floorTo(t, { n: 1, unit: 'w' })).toBe(at('2026-11-16T00:00:00Z'))
    expect(floorTo(t, { n: 1, unit: 'M' })).toBe(at('2026-11-01T00:00:00Z'))
    expect(floorTo(t, { n: 3, unit: 'M' })).toBe(at('2026-10-01T00:00:00Z'))
    expect(ceilTo(at('2026-11-22T13:05:00Z'), { n: 5, unit: 'm' })).toBe(at('2026-11-22T13:05:00Z'))
    expect(ceilTo(t, { n: 1, unit: 'M' })).toBe(at('2026-12-01T00:00:00Z'))
    expect(bucketStarts(at('2026-01-15T00:00:00Z'), at('2026-04-01T00:00:00Z'), { n: 1, unit: 'M' })).toEqual([
      at('2026-02-01T00:00:00Z'),
      at('2026-03-01T00:00:00Z')
    ])
  })

  it('knows which widths are whole multiples of which', () => {
    const s = (t: string) => parseSpan(t, 'x')
    const yes = [
      ['3m', '1m'],
      ['12h', '1h'],
      ['1w', '1d'],
      ['1w', '4h'],
      ['1M', '1h'],
      ['3M', '1M'],
      ['2w', '1w'],
      ['1d', '15m']
    ]
    const no = [
      ['90m', '1h'],
      ['12m', '5m'],
      ['1M', '1w'],
      ['1w', '5h'],
      ['2d', '1w'],
      ['1M', '7h']
    ]
    for (const [a, b] of yes) expect(isWholeMultiple(s(a!), s(b!)), `${a}/${b}`).toBe(true)
    for (const [a, b] of no) expect(isWholeMultiple(s(a!), s(b!)), `${a}/${b}`).toBe(false)
  })
})

describe('gaps', () => {
  it('merges adjacent missing buckets into [start, end) ranges', () => {
    const m = 60_000
    expect(findGaps([0, 3 * m, 4 * m], 0, 7 * m, { n: 1, unit: 'm' })).toEqual([
      { start: m, end: 3 * m },
      { start: 5 * m, end: 7 * m }
    ])
    expect(findGaps([], 0, 2 * m, { n: 1, unit: 'm' })).toEqual([{ start: 0, end: 2 * m }])
    expect(findGaps([0, m], 0, 2 * m, { n: 1, unit: 'm' })).toEqual([])
  })
})

describe('ranges', () => {
  const now = at('2026-11-22T12:00:00Z')
  const limits = { defaultLookback: { n: 1, unit: 'd' as const }, plan: PLANS.enterprise }
  it('dates are UTC days, end inclusive; impossible dates are refused', () => {
    expect(parseDate('2024-02-29', 'start')).toBe(at('2024-02-29T00:00:00Z'))
    expect(() => parseDate('2023-02-29', 'start')).toThrow(/YYYY-MM-DD/)
    expect(() => parseDate('2023-2-1', 'start')).toThrow(/YYYY-MM-DD/)
  })
  it('lookback ends at end_time or now; start_time with lookback is refused', () => {
    expect(resolveRange({ lookback: '2h' }, limits, now)).toEqual({ fromMs: now - 7_200_000, toMs: now })
    expect(() => resolveRange({ lookback: '2h', start_time: 1 }, limits, now)).toThrow(/either lookback or start_time/)
  })
})
