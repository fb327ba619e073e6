/**
 * @module
 * The SQL of the funding endpoints, over the funding aggregates (schemas/003_derivatives_aggregates.sql).
 * Each hourly row holds the last reading of the hour (`rate_last`, argMax by reading time), the mean of the
 * hour's readings, their extremes, the market's funding interval and the reading count; wider buckets
 * merge those states, so a bucket's `last_rate` is the last reading in the bucket and `mean_rate` the mean
 * of all its readings. User text travels only as bound parameters; the bucket expression is built from a
 * parsed span (numbers only).
 */
import type { Store } from '../store/store.js'
import type { FundingSample } from './funding-stats.js'
import type { Market } from './markets.js'
import type { TimeRange } from './range.js'
import { DAY, bucketSql, isWholeMultiple, type Span } from './span.js'
import { dateTimeSeconds } from './sql-bounds.js'
import { fundingFrom } from './funding-known.js'

/** One market's merged bucket, as read. */
export interface FundingBucketRow {
  readonly exchange: string
  readonly symbol: string
  /** bucket start, epoch ms */
  readonly t_ms: number
  /** last reading in the bucket, decimal fraction per funding interval */
  readonly last_rate: number
  /** mean of the bucket's readings */
  readonly mean_rate: number
  readonly low_rate: number
  readonly high_rate: number
  /** the market's funding interval (the largest seen in the bucket) */
  readonly hours: number
  /** readings in the bucket */
  readonly readings: number
}

/** Daily rows serve whole-day buckets (24x fewer rows); both tables keep 24 months. */
export function fundingSource(span: Span): 'funding_1h' | 'funding_1d' {
  return isWholeMultiple(span, DAY) ? 'funding_1d' : 'funding_1h'
}

function rangeParams(range: TimeRange): { from_s: number; to_s: number } {
  return { from_s: dateTimeSeconds(range.fromMs, 'floor'), to_s: dateTimeSeconds(range.toMs, 'floor') }
}

/**
 * Buckets of width `span` in `range` of the given markets (one base asset), only those with data, ordered
 * by exchange, symbol and time. `span` must be a whole number of hours. With `knownByMs`, only readings
 * received by then (funding-known.ts).
 */
export async function fundingBuckets(
  store: Store,
  markets: readonly Market[],
  range: TimeRange,
  span: Span,
  knownByMs?: number
): Promise<FundingBucketRow[]> {
  if (markets.length === 0) return []
  const src = await fundingFrom(store, fundingSource(span), range, knownByMs)
  const rows = await store.query<FundingBucketRow>(
    `SELECT exchange, symbol, toUnixTimestamp(${bucketSql('bucket', span)}) * 1000 AS t_ms,
       argMaxMerge(rate_last) AS last_rate, avgMerge(rate_avg) AS mean_rate,
       min(rate_min) AS low_rate, max(rate_max) AS high_rate,
       max(interval_hours) AS hours, sum(samples) AS readings
     FROM ${src.from}
     WHERE base = {base:String} AND exchange IN {exchanges:Array(String)} AND symbol IN {symbols:Array(String)}
       AND bucket >= toDateTime({from_s:Int64}, 'UTC') AND bucket < toDateTime({to_s:Int64}, 'UTC')
     GROUP BY exchange, symbol, t_ms
     ORDER BY exchange, symbol, t_ms`,
    {
      base: markets[0]!.base,
      exchanges: [...new Set(markets.map((m) => m.exchange))],
      symbols: [...new Set(markets.map((m) => m.symbol))],
      ...rangeParams(range),
      ...src.params
    }
  )
  // exchanges x symbols may match a pair not asked for (BTCUSDT on bybit when okx's was asked)
  const wanted = new Set(markets.map((m) => `${m.exchange}\u0000${m.symbol}`))
  return rows.filter((r) => wanted.has(`${r.exchange}\u0000${r.symbol}`))
}

/**
 * The hourly series of one market in `range`: the last reading of each hour with data, oldest first; with
 * `knownByMs`, of the readings received by then.
 */
export async function hourlyFunding(
  store: Store,
  market: Market,
  range: TimeRange,
  knownByMs?: number
): Promise<FundingSample[]> {
  const src = await fundingFrom(store, 'funding_1h', range, knownByMs)
  return store.query<FundingSample>(
    `SELECT toUnixTimestamp(bucket) * 1000 AS ts, argMaxMerge(rate_last) AS rate,
       max(interval_hours) AS intervalHours
     FROM ${src.from}
     WHERE base = {base:String} AND exchange = {exchange:String} AND symbol = {symbol:String}
       AND bucket >= toDateTime({from_s:Int64}, 'UTC') AND bucket < toDateTime({to_s:Int64}, 'UTC')
     GROUP BY bucket
     ORDER BY bucket`,
    { base: market.base, exchange: market.exchange, symbol: market.symbol, ...rangeParams(range), ...src.params }
  )
}
