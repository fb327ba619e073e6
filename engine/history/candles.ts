/**
 * @module
 * Candle reads from the candle tables (schemas/002_candles.sql). Every table holds aggregate states, so a
 * read groups by bucket and merges: open = argMinMerge (first trade by time), close = argMaxMerge (last),
 * high = max, low = min, volumes and trade counts summed. Merging states of several buckets gives the
 * candle of their union, which is how `resample` builds 3m from 1m or 12h from 1h exactly.
 */
import type { Store } from '../store/store.js'
import type { Market } from './markets.js'
import { bucketSql, floorTo, plus, type Span } from './span.js'
import { dateTimeSeconds } from './sql-bounds.js'

/** The spec's OHLCV record (timestamp = bucket start, epoch ms). */
export interface Candle {
  readonly timestamp: number
  readonly symbol: string
  readonly timeframe: string
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume_base: number
  readonly volume_quote: number
  readonly trades: number
}

/** A merged candle row as the reads select it. */
export interface Row {
  readonly t: number
  readonly o: number
  readonly h: number
  readonly l: number
  readonly c: number
  readonly vb: number
  readonly vq: number
  readonly n: number
}

/** The merged columns of a candle group; aliases differ from column names (ClickHouse alias trap). */
export const MERGED = `argMinMerge(open) AS o, max(high) AS h, min(low) AS l, argMaxMerge(close) AS c,
  sum(volume_base) AS vb, sum(volume_quote) AS vq, sum(trades) AS n`

export const MARKET_WHERE = `base = {base:String} AND exchange = {exchange:String} AND symbol = {symbol:String}`

export function toCandle(r: Row, symbol: string, timeframe: string): Candle {
  return {
    timestamp: r.t,
    symbol,
    timeframe,
    open: r.o,
    high: r.h,
    low: r.l,
    close: r.c,
    volume_base: r.vb,
    volume_quote: r.vq,
    trades: r.n
  }
}

const marketParams = (m: Market) => ({ base: m.base, exchange: m.exchange, symbol: m.symbol })

/**
 * Candles of `table` with bucket in [fromMs, toMs), oldest first; with `target`, the table's buckets are
 * merged into buckets of that width (aligned per span.ts), which must be a whole multiple of the table's.
 */
export async function readCandles(
  store: Store,
  m: Market,
  table: string,
  timeframe: string,
  fromMs: number,
  toMs: number,
  target?: Span
): Promise<Candle[]> {
  const key = target ? bucketSql('bucket', target) : 'bucket'
  const rows = await store.query<Row>(
    `SELECT toUnixTimestamp(${target ? 'tb' : 'bucket'}) * 1000 AS t, ${MERGED}
     FROM ${table}
     WHERE ${MARKET_WHERE} AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')
     GROUP BY ${target ? `${key} AS tb` : 'bucket'} ORDER BY t`,
    { ...marketParams(m), from: dateTimeSeconds(fromMs, 'ceil'), to: dateTimeSeconds(toMs, 'ceil') }
  )
  return rows.map((r) => toCandle(r, m.symbol, timeframe))
}

/** One probe of `latestCandles`: a table and the newest bucket start allowed (and the oldest searched). */
export interface LatestProbe {
  readonly timeframe: string
  readonly table: string
  /** newest bucket start accepted, epoch ms (inclusive) */
  readonly atOrBeforeMs: number
  /** oldest bucket start searched, epoch ms (inclusive) */
  readonly notBeforeMs: number
  /**
   * read instead of `table` (a `known_by` source, known-sources.ts `candleFrom`) with its parameters; its
   * rows are states of parts of buckets (raw minutes, hours), merged into buckets of `span`
   */
  readonly source?: {
    readonly from: string
    readonly params: Readonly<Record<string, number | readonly number[]>>
    readonly span: Span
  }
}

/**
 * For each probe, the newest candle with bucket in [notBeforeMs, atOrBeforeMs], in one query. A probe whose
 * window is empty or ends before the epoch (a `timestamp` within one bucket of 1970) has no candle and is
 * not queried.
 */
export async function latestCandles(store: Store, m: Market, probes: readonly LatestProbe[]): Promise<Candle[]> {
  const params: Record<string, string | number | readonly number[]> = marketParams(m)
  const parts: string[] = []
  probes.forEach((p, i) => {
    if (p.atOrBeforeMs < Math.max(0, p.notBeforeMs)) return
    params[`hi${i}`] = dateTimeSeconds(p.atOrBeforeMs, 'floor')
    params[`lo${i}`] = dateTimeSeconds(p.notBeforeMs, 'ceil')
    if (p.source) {
      // the parts of whole buckets in [lo, hi], merged per bucket of the timeframe
      Object.assign(params, p.source.params)
      params[`lof${i}`] = dateTimeSeconds(floorTo(p.notBeforeMs, p.source.span), 'floor')
      params[`hie${i}`] = dateTimeSeconds(plus(p.atOrBeforeMs, p.source.span), 'ceil')
      parts.push(`SELECT ${i} AS probe, toUnixTimestamp(tb) * 1000 AS t, ${MERGED} FROM ${p.source.from}
      WHERE ${MARKET_WHERE} AND bucket < toDateTime({hie${i}:UInt32}, 'UTC') AND bucket >= toDateTime({lof${i}:UInt32}, 'UTC')
      GROUP BY ${bucketSql('bucket', p.source.span)} AS tb
      HAVING tb <= toDateTime({hi${i}:UInt32}, 'UTC') AND tb >= toDateTime({lo${i}:UInt32}, 'UTC')
      ORDER BY tb DESC LIMIT 1`)
      return
    }
    parts.push(`SELECT ${i} AS probe, toUnixTimestamp(bucket) * 1000 AS t, ${MERGED} FROM ${p.table}
      WHERE ${MARKET_WHERE} AND bucket <= toDateTime({hi${i}:UInt32}, 'UTC') AND bucket >= toDateTime({lo${i}:UInt32}, 'UTC')
      GROUP BY bucket ORDER BY bucket DESC LIMIT 1`)
  })
  if (parts.length === 0) return []
  const rows = await store.query<Row & { probe: number }>(
    parts.map((p) => `SELECT * FROM (${p})`).join(' UNION ALL '),
    params
  )
  rows.sort((a, b) => a.probe - b.probe)
  return rows.map((r) => toCandle(r, m.symbol, probes[r.probe]!.timeframe))
}
