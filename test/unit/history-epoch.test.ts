/**
 * Ranges and SQL bounds at the edges of what is stored: before the Unix epoch (nothing exists; the range
 * is cut there, or empty) and past the DateTime span (bounds clamp). docs/history.md "At the epoch".
 */
import { describe, it, expect } from 'vitest'
import { PLANS } from '../../engine/access/plans.js'
import { parseDate, resolveDateRange, resolveRange } from '../../engine/history/range.js'
import { DATETIME_MAX_SECONDS, dateTimeSeconds } from '../../engine/history/sql-bounds.js'
import { apiError } from '../helpers/api-error.js'

const HOUR = 3_600_000
const DAY = 86_400_000
const now = Date.parse('2026-11-22T12:00:00Z')
const month = { n: 24, unit: 'M' } as const
const limits = {
  defaultLookback: { n: 1000, unit: 'M' as const },
  maxLookback: { span: month, what: 'timeframe 1M' },
  plan: PLANS.enterprise
}

describe('ranges at the epoch', () => {
  it('a lookback reaching before 1970 is cut at the epoch', () => {
    expect(resolveRange({ lookback: '2h', end_time: 1000 }, limits, now)).toEqual({ fromMs: 0, toMs: 1000 })
    expect(resolveRange({ lookback: '1h', end_time: HOUR }, limits, now)).toEqual({ fromMs: 0, toMs: HOUR })
  })
  it('a range wholly before the epoch is empty, not an error', () => {
    expect(resolveRange({ end_time: 0 }, limits, now)).toEqual({ fromMs: 0, toMs: 0 })
    expect(resolveRange({ lookback: '1d', end_time: 0 }, limits, now)).toEqual({ fromMs: 0, toMs: 0 })
  })
  it('the limits judge the range as asked, before the cut', () => {
    const err = apiError(() => resolveRange({ lookback: '100000y', end_time: 1000 }, limits, now))
    expect([err.code, err.param]).toEqual(['invalid_parameter', 'lookback'])
    expect(err.message).toMatch(/at most 24 months/)
  })
  it('a start at or after the end is a 400 naming start_time', () => {
    for (const [s, e] of [
      [5, 5],
      [6, 5],
      [1, 0]
    ] as const) {
      const err = apiError(() => resolveRange({ start_time: s, end_time: e }, limits, now))
      expect([err.code, err.param]).toEqual(['invalid_parameter', 'start_time'])
    }
    expect(resolveRange({ start_time: 0, end_time: 1 }, limits, now)).toEqual({ fromMs: 0, toMs: 1 })
  })
  it('an end_time before the plan reaches is a 400 naming end_time, not the lookback the caller never gave', () => {
    const err = apiError(() => resolveRange({ end_time: 0 }, { ...limits, plan: PLANS.pro }, now))
    expect([err.code, err.param]).toEqual(['invalid_parameter', 'end_time'])
    expect(err.message).toMatch(/pro plan reaches 730 days back; end_time is \d+ days ago/)
  })
  it('date ranges before 1970 are empty, across it cut at the epoch', () => {
    const names = { start: 'start', end: 'end' }
    const l = { maxLookback: limits.maxLookback, plan: PLANS.enterprise }
    expect(resolveDateRange('1969-12-01', '1969-12-31', names, l, now)).toEqual({ fromMs: 0, toMs: 0 })
    expect(resolveDateRange('1969-12-25', '1970-01-01', names, l, now)).toEqual({ fromMs: 0, toMs: DAY })
  })
  it('dates of years 0000 to 0099 are those years (Date.UTC would read them as 19xx)', () => {
    expect(new Date(parseDate('0001-01-01', 'start')).toISOString()).toBe('0001-01-01T00:00:00.000Z')
    expect(new Date(parseDate('0099-12-31', 'start')).toISOString()).toBe('0099-12-31T00:00:00.000Z')
    expect(new Date(parseDate('0000-02-29', 'start')).toISOString()).toBe('0000-02-29T00:00:00.000Z')
    expect(() => parseDate('0001-02-29', 'start')).toThrow(/YYYY-MM-DD/)
  })
})

describe('DateTime bounds for SQL parameters', () => {
  it('round as asked and clamp into the UInt32 seconds a DateTime holds', () => {
    expect(dateTimeSeconds(1500, 'floor')).toBe(1)
    expect(dateTimeSeconds(1500, 'ceil')).toBe(2)
    expect(dateTimeSeconds(-3_600_000, 'floor')).toBe(0)
    expect(dateTimeSeconds(-1, 'ceil')).toBe(0)
    expect(Object.is(dateTimeSeconds(-999, 'ceil'), 0)).toBe(true)
    expect(dateTimeSeconds(9_999_999_999_999, 'ceil')).toBe(DATETIME_MAX_SECONDS)
    expect(dateTimeSeconds(DATETIME_MAX_SECONDS * 1000, 'floor')).toBe(DATETIME_MAX_SECONDS)
  })
})
