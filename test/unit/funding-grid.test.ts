import { describe, expect, it } from 'vitest'
import { comparativeGrid, heatmapGrid } from '../../engine/history/funding-grid.js'
import type { FundingBucketRow } from '../../engine/history/funding-queries.js'
import type { Market } from '../../engine/history/markets.js'
import type { Span } from '../../engine/history/span.js'

const HOUR = 3_600_000
const T0 = Date.UTC(2025, 0, 1)
const H1: Span = { n: 1, unit: 'h' }
const BN: Market = { base: 'BTC', exchange: 'binance', symbol: 'BTCUSDT' }
const OKX: Market = { base: 'BTC', exchange: 'okx', symbol: 'BTC-USDT-SWAP' }

const row = (m: Market, hour: number, rate: number, hours: number): FundingBucketRow => ({
  exchange: m.exchange,
  symbol: m.symbol,
  t_ms: T0 + hour * HOUR,
  last_rate: rate,
  mean_rate: rate,
  low_rate: rate,
  high_rate: rate,
  hours,
  readings: 1
})

describe('heatmapGrid', () => {
  it('lists every bucket, null where no reading and 0 where the rate was 0', () => {
    const rows = [row(BN, 0, 0.0001, 8), row(BN, 2, 0, 8)]
    const { cells, gaps } = heatmapGrid(rows, BN, { fromMs: T0, toMs: T0 + 4 * HOUR }, H1)
    expect(cells.map((c) => c.rate)).toEqual([0.0001, null, 0, null])
    expect(cells.map((c) => c.timestamp)).toEqual([0, 1, 2, 3].map((h) => T0 + h * HOUR))
    expect(cells[0]).toMatchObject({ rate_annualized: 0.0001 * 1095, rate_8h: 0.0001, interval_hours: 8, readings: 1 })
    expect(cells[1]).toMatchObject({ rate_annualized: null, rate_avg: null, interval_hours: null, readings: 0 })
    expect(cells[2]).toMatchObject({ rate_annualized: 0, readings: 1 })
    expect(gaps).toEqual([
      { start: T0 + HOUR, end: T0 + 2 * HOUR },
      { start: T0 + 3 * HOUR, end: T0 + 4 * HOUR }
    ])
  })

  it("ignores another market's rows", () => {
    const { cells } = heatmapGrid([row(OKX, 0, 0.0003, 4)], BN, { fromMs: T0, toMs: T0 + HOUR }, H1)
    expect(cells[0]!.rate).toBeNull()
  })
})

describe('comparativeGrid', () => {
  it('normalizes each market by its own interval and spreads on the 8-hour basis', () => {
    const rows = [row(BN, 0, 0.0001, 8), row(OKX, 0, 0.0001, 4), row(OKX, 1, -0.0002, 4)]
    const g = comparativeGrid(rows, [BN, OKX], { fromMs: T0, toMs: T0 + 3 * HOUR }, H1)
    expect(g.rows).toHaveLength(3)
    expect(Object.keys(g.rows[0]!.exchanges)).toEqual(['binance', 'okx'])
    expect(g.rows[0]!.exchanges['okx']).toMatchObject({ rate: 0.0001, rate_8h: 0.0002, interval_hours: 4 })
    expect(g.rows[0]!.exchanges['okx']!.rate_annualized).toBeCloseTo(0.219, 12)
    expect(g.rows[0]!.spread_8h).toBeCloseTo(0.0001, 15)
    expect(g.rows[1]!.exchanges['binance']!.rate).toBeNull()
    expect(g.rows[1]!.spread_8h).toBeNull() // one reading: no spread
    expect(g.gaps).toEqual([{ start: T0 + 2 * HOUR, end: T0 + 3 * HOUR }])
    expect(g.marketGaps).toEqual([
      [{ start: T0 + HOUR, end: T0 + 3 * HOUR }],
      [{ start: T0 + 2 * HOUR, end: T0 + 3 * HOUR }]
    ])
  })
})
