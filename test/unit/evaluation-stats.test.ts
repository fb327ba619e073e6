/**
 * The walk-forward evaluation's pure parts: the summary statistics, forward returns from candle closes, the
 * grouping by action and confidence beside the always-confirm baseline, and the step grid.
 */
import { describe, expect, it } from 'vitest'
import { closesOf, forwardReturn } from '../../engine/evaluation/forward-returns.js'
import { evaluationReport } from '../../engine/evaluation/report.js'
import { summarize, Z_95 } from '../../engine/evaluation/stats.js'
import { parseHorizon, priceTimeframe, stepCount, stepGrid } from '../../engine/evaluation/steps.js'

const H = 3_600_000

describe('summarize', () => {
  it('gives n, mean, median, hit rate and the normal-approximation interval of the mean', () => {
    const s = summarize([0.02, -0.01, 0.03, 0])
    expect(s.n).toBe(4)
    expect(s.mean).toBeCloseTo(0.01, 15)
    expect(s.median).toBeCloseTo(0.01, 15) // (0 + 0.02) / 2
    expect(s.hit_rate).toBe(0.5) // 0 is not a hit
    // squared deviations from 0.01 sum to 0.001: sample sd = sqrt(0.001 / 3)
    const half = (Z_95 * Math.sqrt(0.001 / 3)) / 2
    expect(s.ci95![0]).toBeCloseTo(0.01 - half, 15)
    expect(s.ci95![1]).toBeCloseTo(0.01 + half, 15)
  })

  it('answers nulls for no returns and no interval for one', () => {
    expect(summarize([])).toEqual({ n: 0, mean: null, median: null, hit_rate: null, ci95: null })
    expect(summarize([0.5])).toMatchObject({ n: 1, mean: 0.5, median: 0.5, hit_rate: 1, ci95: null })
  })

  it('gives the same numbers for the same returns (reproducible)', () => {
    const r = Array.from({ length: 500 }, (_, i) => Math.sin(i * 1.7) / 100)
    expect(summarize(r)).toEqual(summarize([...r]))
  })
})

describe('forward returns', () => {
  // 1h candles by bucket start: closes 100 (ends 1h), 110 (ends 2h), gap at 2h-3h, 99 (ends 4h)
  const closes = closesOf(
    [
      { timestamp: 0, close: 100 },
      { timestamp: H, close: 110 },
      { timestamp: 3 * H, close: 99 }
    ],
    H
  )

  it('is close(t + h) / close(t) - 1 for a long and its negation for a short', () => {
    expect(forwardReturn(closes, H, H, 'long')).toBeCloseTo(0.1, 15)
    expect(forwardReturn(closes, H, H, 'short')).toBeCloseTo(-0.1, 15)
    expect(forwardReturn(closes, H, 3 * H, 'long')).toBeCloseTo(-0.01, 15)
  })

  it('tells a horizon beyond the newest candle from a gap', () => {
    expect(forwardReturn(closes, 2 * H, 3 * H, 'long')).toBe('beyond')
    expect(forwardReturn(closes, 2 * H, H, 'long')).toBe('no_price') // exit candle ending at 3h is missing
    expect(forwardReturn(closes, 3 * H, H, 'long')).toBe('no_price') // entry candle missing
  })
})

describe('evaluationReport', () => {
  it('groups every action and confidence, counts what was left out, and reports the baseline of every step', () => {
    const r = evaluationReport(
      [
        { action: 'CONFIRM', confidence: 'HIGH', returns: [0.01, 'beyond'] },
        { action: 'CONFIRM', confidence: 'HIGH', returns: [0.03, 0.05] },
        { action: 'SKIP', confidence: 'MEDIUM', returns: [-0.02, 'no_price'] }
      ],
      ['1h', '4h']
    )
    expect(r.groups.map((g) => `${g.action}/${g.confidence}:${g.answers}`)).toEqual([
      'CONFIRM/HIGH:2',
      'CONFIRM/MEDIUM:0',
      'REDUCE/HIGH:0',
      'REDUCE/MEDIUM:0',
      'SKIP/HIGH:0',
      'SKIP/MEDIUM:1'
    ])
    expect(r.groups[0]!.horizons['1h']).toMatchObject({ n: 2, mean: 0.02, hit_rate: 1, beyond_data: 0 })
    expect(r.groups[0]!.horizons['4h']).toMatchObject({ n: 1, mean: 0.05, beyond_data: 1, no_price: 0 })
    expect(r.groups[5]!.horizons['4h']).toMatchObject({ n: 0, mean: null, no_price: 1 })
    expect(r.baseline).toMatchObject({ action: 'ALWAYS_CONFIRM', confidence: null, answers: 3 })
    expect(r.baseline.horizons['1h']!.n).toBe(3)
    expect(r.baseline.horizons['1h']!.mean).toBeCloseTo(0.02 / 3, 15)
  })
})

describe('steps and horizons', () => {
  it('lays steps on multiples of the interval in [start, end)', () => {
    expect(stepGrid(H + 1, 4 * H, H, 100)).toEqual([2 * H, 3 * H])
    expect(stepGrid(H, 4 * H + 1, H, 2)).toEqual([H, 2 * H])
    expect(stepCount(H + 1, 4 * H, H)).toBe(2)
    expect(stepCount(H, 4 * H + 1, H)).toBe(4)
    expect(stepCount(H + 1, 2 * H, H)).toBe(0)
  })

  it('reads prices from the widest candles whose width divides the interval and every horizon', () => {
    expect(priceTimeframe(H, [parseHorizon('1h', 'h'), parseHorizon('24h', 'h')]).name).toBe('1h')
    expect(priceTimeframe(H, [parseHorizon('90m', 'h')]).name).toBe('15m')
    expect(priceTimeframe(86_400_000, [parseHorizon('1d', 'h'), parseHorizon('8h', 'h')]).name).toBe('4h')
  })

  it('refuses horizons of weeks, months or beyond 30 days with a message', () => {
    expect(() => parseHorizon('31d', 'horizons')).toThrow(/minutes, hours or days from 1m to 30d/)
    expect(() => parseHorizon('1w', 'horizons')).toThrow(/minutes, hours or days/)
    expect(() => parseHorizon('1M', 'horizons')).toThrow(/minutes, hours or days/)
  })
})
