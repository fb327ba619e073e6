/**
 * @module
 * Aggregate tables as they were known at a moment (`known_by`, docs/history.md "Known by"), for the reads
 * that span several markets (the aligned series, engine/history/aligned.ts, and the candle export): the
 * source of a read is the aggregate table outside the late hours (engine/asof/known-at.ts) and, for each
 * late hour, the same states recomputed from the raw rows received by then (`ingest_ts <= known_by`), with
 * the aggregation of the table's materialized view. No late hour in the range: the plain table, so the
 * read is the same SQL as without `known_by`.
 *
 * Candles: timeframes up to 1h hold whole buckets per hour, so their table is read outside the late hours
 * and the late hours come from raw trades as 1m states. Coarser tables (4h, 1d, 1w, 1M) hold several hours
 * per bucket: a bucket holding a late hour is rebuilt from candles_1h (its other hours) and the raw trades
 * (its late hours), as engine/history/candles-known.ts does for one market. Raw rows are kept 90 days
 * (docs/records.md): a late hour older than that has no raw rows left and reads as empty.
 *
 * Parameter names carry a prefix per source (`ck_` or the caller's for candles, `ok_`, `lk_`) so sources
 * combine in one query.
 */
import { lateHours } from '../asof/known-at.js'
import type { Store } from '../store/store.js'
import { bucketSql, floorTo, plus, type Span } from './span.js'
import type { Timeframe } from './timeframes.js'

const HOUR_MS = 3_600_000

/** A source: the table or subquery a read selects `FROM`, and the parameters it binds. */
export interface KnownFrom {
  readonly from: string
  readonly params: Readonly<Record<string, number | readonly number[]>>
}

/** Raw rows of the late hours `p`-prefixed parameters name, received by `{p_known}`. */
const rawWhere = (p: string) => `ts >= fromUnixTimestamp64Milli({${p}_from:Int64}, 'UTC')
        AND ts < fromUnixTimestamp64Milli({${p}_to:Int64}, 'UTC')
        AND has({${p}_late:Array(UInt32)}, toUInt32(toStartOfHour(ts)))
        AND ingest_ts <= fromUnixTimestamp64Milli({${p}_known:Int64}, 'UTC')`

function lateParams(p: string, late: readonly number[], knownByMs: number): Record<string, number | number[]> {
  return {
    [`${p}_late`]: late.map((h) => h / 1000),
    [`${p}_from`]: late[0]!,
    [`${p}_to`]: late[late.length - 1]! + HOUR_MS,
    [`${p}_known`]: knownByMs
  }
}

/** Candle states, every column of one type across the UNION ALL (schemas/002_candles.sql). */
const CANDLE_STATES = `base, exchange, symbol, bucket, open, toFloat64(high) AS high, toFloat64(low) AS low, close,
  toFloat64(volume_base) AS volume_base, toFloat64(volume_quote) AS volume_quote, toUInt64(trades) AS trades`

/** The 1m view's aggregation of raw trades (candles_1m_mv), per market and minute. */
const CANDLE_RAW = `base, exchange, symbol, toDateTime(toStartOfMinute(ts), 'UTC') AS bucket,
  argMinState(price, ts) AS open, max(price) AS high, min(price) AS low, argMaxState(price, ts) AS close,
  sum(qty) AS volume_base, sum(price * qty) AS volume_quote, count() AS trades`

/** Whether the timeframe's buckets are whole parts of an hour (1m, 5m, 15m, 1h). */
const withinHour = (s: Span): boolean => s.unit === 'm' || (s.unit === 'h' && s.n === 1)

/**
 * The candles of `tf`'s table with bucket in [fromMs, toMs) as known by `knownByMs` (undefined: the table).
 * Columns: base, exchange, symbol, bucket and the candle states (open/close argMin/argMax states, high, low,
 * volume_base, volume_quote, trades); several rows may share a key: reads merge them as they merge the table's.
 * `p` prefixes the bound parameters' names (several candle sources in one query need distinct ones).
 */
export async function candleFrom(
  store: Store,
  tf: Timeframe,
  fromMs: number,
  toMs: number,
  knownByMs: number | undefined,
  p = 'ck'
): Promise<KnownFrom> {
  if (knownByMs === undefined) return { from: tf.table, params: {} }
  const late = await lateHours(store, 'trades', fromMs, toMs, knownByMs)
  if (late.length === 0) return { from: tf.table, params: {} }
  const params: Record<string, number | readonly number[]> = lateParams(p, late, knownByMs)
  const parts: string[] = []
  if (withinHour(tf.span)) {
    parts.push(`SELECT ${CANDLE_STATES} FROM ${tf.table}
      WHERE NOT has({${p}_late:Array(UInt32)}, toUInt32(toStartOfHour(bucket)))`)
  } else {
    // buckets holding a late hour (epoch s): rebuilt from candles_1h (their other hours) and raw trades
    const touched = [...new Set(late.map((h) => floorTo(h, tf.span)))]
    params[`${p}_touched`] = touched.map((t) => t / 1000)
    params[`${p}_tfrom`] = touched[0]! / 1000
    params[`${p}_tto`] = plus(touched[touched.length - 1]!, tf.span) / 1000
    parts.push(`SELECT ${CANDLE_STATES} FROM ${tf.table} WHERE NOT has({${p}_touched:Array(UInt32)}, toUInt32(bucket))`)
    parts.push(`SELECT ${CANDLE_STATES} FROM candles_1h
      WHERE bucket >= toDateTime({${p}_tfrom:UInt32}, 'UTC') AND bucket < toDateTime({${p}_tto:UInt32}, 'UTC')
        AND has({${p}_touched:Array(UInt32)}, toUInt32(${bucketSql('bucket', tf.span)}))
        AND NOT has({${p}_late:Array(UInt32)}, toUInt32(bucket))`)
  }
  parts.push(`SELECT ${CANDLE_RAW} FROM trades WHERE ${rawWhere(p)} GROUP BY base, exchange, symbol, bucket`)
  return { from: `(${parts.join('\nUNION ALL\n')})`, params }
}

/**
 * open_interest_1h as known by `knownByMs` over [fromMs, toMs) (undefined: the table). Columns: base,
 * exchange, symbol, bucket, oi_base_last, oi_usd_last (argMax states by reading time).
 */
export async function openInterestFrom(
  store: Store,
  fromMs: number,
  toMs: number,
  knownByMs: number | undefined
): Promise<KnownFrom> {
  if (knownByMs === undefined) return { from: 'open_interest_1h', params: {} }
  const late = await lateHours(store, 'open_interest', fromMs, toMs, knownByMs)
  if (late.length === 0) return { from: 'open_interest_1h', params: {} }
  return {
    from: `(SELECT base, exchange, symbol, bucket, oi_base_last, oi_usd_last FROM open_interest_1h
        WHERE NOT has({ok_late:Array(UInt32)}, toUInt32(bucket))
      UNION ALL
      SELECT base, exchange, symbol, toDateTime(toStartOfHour(ts), 'UTC') AS bucket,
        argMaxState(oi_base, ts) AS oi_base_last, argMaxState(oi_usd, ts) AS oi_usd_last
      FROM open_interest WHERE ${rawWhere('ok')} GROUP BY base, exchange, symbol, bucket)`,
    params: lateParams('ok', late, knownByMs)
  }
}

/**
 * liquidations_1h as known by `knownByMs` over [fromMs, toMs) (undefined: the table). Columns: base,
 * exchange, symbol, side, bucket, usd (USD liquidated, summed by reads).
 */
export async function liquidationsFrom(
  store: Store,
  fromMs: number,
  toMs: number,
  knownByMs: number | undefined
): Promise<KnownFrom> {
  if (knownByMs === undefined) return { from: 'liquidations_1h', params: {} }
  const late = await lateHours(store, 'liquidations', fromMs, toMs, knownByMs)
  if (late.length === 0) return { from: 'liquidations_1h', params: {} }
  return {
    from: `(SELECT base, exchange, symbol, side, bucket, toFloat64(usd) AS usd FROM liquidations_1h
        WHERE NOT has({lk_late:Array(UInt32)}, toUInt32(bucket))
      UNION ALL
      SELECT base, exchange, symbol, side, toDateTime(toStartOfHour(ts), 'UTC') AS bucket, sum(price * qty) AS usd
      FROM liquidations WHERE ${rawWhere('lk')} GROUP BY base, exchange, symbol, side, bucket)`,
    params: lateParams('lk', late, knownByMs)
  }
}
