import { describe, expect, it } from 'vitest'
import { PLANS } from '../../engine/access/plans.js'
import { apiError } from '../helpers/api-error.js'
import { fundingWindow, parseFundingInterval } from '../../engine/history/funding-window.js'
import type { Span } from '../../engine/history/span.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** 2025-03-10 10:30 UTC, a Monday */
const NOW = Date.UTC(2025, 2, 10, 10, 30)
const WEEK: Span = { n: 7, unit: 'd' }

describe('parseFundingInterval', () => {
  it('accepts whole numbers of hours, days, weeks and months', () => {
    expect(parseFundingInterval('1h')).toEqual({ n: 1, unit: 'h' })
    expect(parseFundingInterval('8h')).toEqual({ n: 8, unit: 'h' })
    expect(parseFundingInterval('120m')).toEqual({ n: 120, unit: 'm' }) // two hours
    expect(parseFundingInterval('1d')).toEqual({ n: 1, unit: 'd' })
    expect(parseFundingInterval('1w')).toEqual({ n: 1, unit: 'w' })
    expect(parseFundingInterval('1M')).toEqual({ n: 1, unit: 'M' })
  })

  it('answers 400 naming the accepted forms otherwise', () => {
    for (const bad of ['90m', '30m', 'abc', '0h', '1.5h', '']) {
      const e = apiError(() => parseFundingInterval(bad))
      expect(e.code).toBe('invalid_parameter')
      expect(e.param).toBe('interval')
      expect(e.message).toBe(
        'interval must be a whole number of hours, e.g. 1h, 4h, 8h, 12h, 1d, 1w or 1M (funding history is kept per hour)'
      )
    }
  })
})

describe('fundingWindow', () => {
  const base = { span: { n: 1, unit: 'h' } as Span, defaultLookback: WEEK, plan: PLANS.trader, nowMs: NOW }

  it('covers whole buckets: first bucket at or after the start, through the bucket holding now', () => {
    const w = fundingWindow({ ...base, lookback: '7d' })
    expect(w).toEqual({ fromMs: Date.UTC(2025, 2, 3, 11), toMs: Date.UTC(2025, 2, 10, 11) })
    expect((w.toMs - w.fromMs) / HOUR).toBe(168)
    const four = fundingWindow({ ...base, span: { n: 4, unit: 'h' }, lookback: undefined }) // default 7d
    expect(four).toEqual({ fromMs: Date.UTC(2025, 2, 3, 12), toMs: Date.UTC(2025, 2, 10, 12) })
    const days = fundingWindow({ ...base, span: { n: 1, unit: 'd' }, lookback: '7d' })
    expect(days).toEqual({ fromMs: Date.UTC(2025, 2, 4), toMs: Date.UTC(2025, 2, 11) })
  })

  it('answers 400 for a lookback shorter than one interval, beyond 24 months, or beyond the plan', () => {
    const short = apiError(() => fundingWindow({ ...base, span: { n: 1, unit: 'd' }, lookback: '12h' }))
    expect(short.message).toBe(
      'lookback must cover at least one interval (1 day); give a longer lookback or a shorter interval'
    )
    const long = apiError(() => fundingWindow({ ...base, plan: PLANS.enterprise, lookback: '25M' }))
    expect(long.message).toBe('funding history allows at most 24 months of history per request; narrow the range')
    const free = apiError(() => fundingWindow({ ...base, plan: PLANS.free, lookback: '31d' }))
    expect(free.message).toBe('the free plan reaches 30 days back; the range starts 31 days ago')
    expect(fundingWindow({ ...base, plan: PLANS.free, lookback: '30d' }).fromMs).toBe(NOW - 30 * DAY + 30 * 60_000)
    const garbage = apiError(() => fundingWindow({ ...base, lookback: 'week' }))
    expect(garbage.param).toBe('lookback')
  })
})
