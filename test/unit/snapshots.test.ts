import { describe, expect, it } from 'vitest'
import type { MarketPoint } from '../../engine/history/snapshot-series.js'
import {
  combineMarkets,
  completeBuckets,
  seriesAt,
  snapshotRecords,
  type SnapshotMetric
} from '../../engine/history/snapshots.js'

const HOUR = 3_600_000
const T0 = Date.UTC(2025, 0, 1)
const at = (h: number) => T0 + h * HOUR
const pt = (exchange: string, h: number, v: number | null): MarketPoint => ({ exchange, symbol: 'X', t: at(h), v })

describe('combineMarkets', () => {
  const points = [pt('binance', 0, 10), pt('okx', 0, 30), pt('binance', 1, 5), pt('okx', 1, null), pt('okx', 2, 0)]

  it('sums or averages over the markets with a value in each bucket', () => {
    expect([...combineMarkets(points, 'sum')]).toEqual([
      [at(0), 40],
      [at(1), 5],
      [at(2), 0]
    ])
    // bucket 1: okx has no value, so the mean is binance's alone (not (5 + 0) / 2)
    expect([...combineMarkets(points, 'mean')]).toEqual([
      [at(0), 20],
      [at(1), 5],
      [at(2), 0]
    ])
  })

  it('leaves a bucket out when no market has a value', () => {
    expect(combineMarkets([pt('okx', 3, null)], 'sum').has(at(3))).toBe(false)
  })
})

describe('snapshotRecords', () => {
  const starts = [at(0), at(1), at(2)]
  const metrics: SnapshotMetric[] = ['price', 'whale_net_flow']
  const series = new Map<SnapshotMetric, ReadonlyMap<number, number>>([
    [
      'price',
      new Map([
        [at(0), 100],
        [at(2), 102]
      ])
    ],
    ['whale_net_flow', seriesAt(starts, [0, null, -5])],
    ['oi', new Map([[at(0), 1]])]
  ])

  it('has one record per bucket with the requested metrics only, null where there is no data', () => {
    expect(snapshotRecords(starts, metrics, series)).toEqual([
      { timestamp: at(0), price: 100, whale_net_flow: 0 },
      { timestamp: at(1), price: null, whale_net_flow: null },
      { timestamp: at(2), price: 102, whale_net_flow: -5 }
    ])
    expect(snapshotRecords(starts, ['volume'], series)).toEqual(starts.map((t) => ({ timestamp: t, volume: null })))
  })

  it('lists as complete only buckets where every requested metric has a value', () => {
    const recs = snapshotRecords(starts, metrics, series)
    expect(completeBuckets(recs, metrics)).toEqual([at(0), at(2)])
    expect(completeBuckets(snapshotRecords(starts, ['price', 'oi'], series), ['price', 'oi'])).toEqual([at(0)])
  })
})
