/**
 * @module
 * Candles as they were known at a moment (`known_by`): only trades the service had received by then
 * (`ingest_ts <= known_by`). An hour whose trades were all received by then (engine/asof/known-at.ts) is read
 * from the candle tables as usual; a late hour (a later import, gap fill or klines load touched it) is
 * recomputed from the raw trades received by then, with the same aggregation as the 1m view
 * (schemas/002_candles.sql), and merged with the rest as any candle states are. A range without a late hour
 * is the plain read (candles.ts), same SQL and same bytes.
 *
 * Timeframes up to 1h hold whole buckets per hour: their table is read outside the late hours. Coarser ones
 * (4h, 1d, 1w, 1M) hold hours per bucket: a bucket holding a late hour is rebuilt from candles_1h (its other
 * hours) and the raw trades (its late hours). Raw trades are kept 90 days (docs/records.md): a late hour older
 * than that has no raw rows left and reads as empty.
 */
import { lateHours } from '../asof/known-at.js'
import type { Store } from '../store/store.js'
import { MARKET_WHERE, MERGED, readCandles, toCandle, type Candle, type Row } from './candles.js'
import type { Market } from './markets.js'
import { bucketSql, floorTo, type Span } from './span.js'
import { dateTimeSeconds } from './sql-bounds.js'
import type { Timeframe } from './timeframes.js'

const HOUR_MS = 3_600_000

/** Candle states of one part, every column as the merge reads it (one type across the UNION ALL). */
const STATES = `open, toFloat64(high) AS high, toFloat64(low) AS low, close, toFloat64(volume_base) AS volume_base,
  toFloat64(volume_quote) AS volume_quote, toUInt64(trades) AS trades`

/** The 1m view's aggregation of raw trades (candles_1m_mv), per minute. */
const RAW_STATES = `toDateTime(toStartOfMinute(ts), 'UTC') AS bucket, argMinState(price, ts) AS open,
  max(price) AS high, min(price) AS low, argMaxState(price, ts) AS close, sum(qty) AS volume_base,
  sum(price * qty) AS volume_quote, count() AS trades`

/** Whether the timeframe's buckets are whole parts of an hour (1m, 5m, 15m, 1h). */
const withinHour = (s: Span): boolean => s.unit === 'm' || (s.unit === 'h' && s.n === 1)

/**
 * Candles of timeframe `tf` with bucket in [fromMs, toMs) as known by `knownByMs`, oldest first; with
 * `target`, merged into buckets of that width (a whole multiple of `tf`'s), as `readCandles` does.
 */
export async function readCandlesKnown(
  store: Store,
  m: Market,
  tf: Timeframe,
  timeframe: string,
  fromMs: number,
  toMs: number,
  knownByMs: number,
  target?: Span
): Promise<Candle[]> {
  const late = await lateHours(store, 'trades', fromMs, toMs, knownByMs)
  if (late.length === 0) return readCandles(store, m, tf.table, timeframe, fromMs, toMs, target)
  const lateSec = late.map((h) => h / 1000)
  const bounds = `bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')`
  const parts: string[] = []
  const params: Record<string, string | number | readonly number[]> = {
    base: m.base,
    exchange: m.exchange,
    symbol: m.symbol,
    from: dateTimeSeconds(fromMs, 'ceil'),
    to: dateTimeSeconds(toMs, 'ceil'),
    late: lateSec,
    known: knownByMs,
    raw_from: late[0]!,
    raw_to: late[late.length - 1]! + HOUR_MS
  }
  if (withinHour(tf.span)) {
    parts.push(`SELECT bucket, ${STATES} FROM ${tf.table}
      WHERE ${MARKET_WHERE} AND ${bounds} AND NOT has({late:Array(UInt32)}, toUInt32(toStartOfHour(bucket)))`)
  } else {
    // buckets holding a late hour: rebuilt from candles_1h and raw trades
    params['touched'] = [...new Set(late.map((h) => floorTo(h, tf.span) / 1000))]
    parts.push(`SELECT bucket, ${STATES} FROM ${tf.table}
      WHERE ${MARKET_WHERE} AND ${bounds} AND NOT has({touched:Array(UInt32)}, toUInt32(bucket))`)
    parts.push(`SELECT bucket, ${STATES} FROM candles_1h
      WHERE ${MARKET_WHERE} AND ${bounds} AND has({touched:Array(UInt32)}, toUInt32(${bucketSql('bucket', tf.span)}))
        AND NOT has({late:Array(UInt32)}, toUInt32(bucket))`)
  }
  parts.push(`SELECT ${RAW_STATES} FROM trades
    WHERE ${MARKET_WHERE} AND ts >= fromUnixTimestamp64Milli({raw_from:Int64}, 'UTC')
      AND ts < fromUnixTimestamp64Milli({raw_to:Int64}, 'UTC')
      AND has({late:Array(UInt32)}, toUInt32(toStartOfHour(ts)))
      AND ingest_ts <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')
      AND ts >= toDateTime({from:UInt32}, 'UTC') AND ts < toDateTime({to:UInt32}, 'UTC')
    GROUP BY bucket`)
  const key = bucketSql('bucket', target ?? tf.span)
  const rows = await store.query<Row>(
    `SELECT toUnixTimestamp(tb) * 1000 AS t, ${MERGED}
     FROM (${parts.join('\nUNION ALL\n')})
     GROUP BY ${key} AS tb ORDER BY t`,
    params
  )
  return rows.map((r) => toCandle(r, m.symbol, timeframe))
}
