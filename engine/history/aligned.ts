/**
 * @module
 * Rows aligned on one bucket grid per market, for `/v1/historical/correlated-data` and `/v1/backtest/data`:
 * every bucket of [fromMs, toMs) appears for every requested market, and each requested field holds the
 * bucket's value or null when nothing was recorded in it (null is never 0).
 *
 * Field sources (the coarsest table whose buckets tile the requested width; raw tables below one hour):
 * - ohlcv: the candle table of the timeframe (open/close by trade time, volumes summed);
 * - funding_rate: the last rate observed in the bucket (decimal per funding interval), funding_1h / raw;
 * - open_interest: the last OI reading in the bucket, USD, open_interest_1h / raw;
 * - liquidations: USD liquidated in the bucket, long (sell-side orders) and short (buy-side), liquidations_1h / raw;
 * - whale_flow: net USD into tracked whale wallets (transfer_in minus transfer_out) of the base asset's tokens
 *   on every chain, whale_flows_1h / raw whale_transfers.
 *
 * With `knownByMs` (docs/history.md "Known by"), only records the service had received by then: each
 * aggregate is read for the hours complete by then and recomputed from the raw rows received by then for
 * the late ones (known-sources.ts, funding-known.ts, whale-known.ts); raw reads keep the rows with
 * `ingest_ts <= known_by`. Without it, or when no hour of the range is late, the SQL is the plain one.
 */
import type { Store } from '../store/store.js'
import { fundingFrom } from './funding-known.js'
import { candleFrom, liquidationsFrom, openInterestFrom, type KnownFrom } from './known-sources.js'
import { tokensOf } from './whale-assets.js'
import { whaleFrom } from './whale-known.js'
import { marketsCondition, type Market } from './markets.js'
import { ApiError } from '../errors.js'
import { HOUR, bucketSql, bucketStarts, isWholeMultiple, parseSpan, type Span } from './span.js'
import { dateTimeSeconds } from './sql-bounds.js'
import { TIMEFRAMES, TIMEFRAME_NAMES } from './timeframes.js'

export const ALIGNED_FIELDS = ['ohlcv', 'funding_rate', 'open_interest', 'liquidations', 'whale_flow'] as const
export type AlignedField = (typeof ALIGNED_FIELDS)[number]

export interface AlignedRequest {
  readonly markets: readonly Market[]
  readonly span: Span
  readonly fromMs: number
  readonly toMs: number
  readonly fields: ReadonlySet<AlignedField>
  /** use only records received by this moment, epoch ms (undefined: everything stored) */
  readonly knownByMs?: number
}

export type AlignedRow = Record<string, string | number | null>

/** Parses an aligned-data interval: a span of at most months (years do not tile candle tables); 400 naming `param`. */
export function parseAlignedInterval(text: string, param = 'interval'): Span {
  const span = parseSpan(text, param)
  if (span.unit === 'y') throw new ApiError('invalid_parameter', `${param} must be at most months (e.g. 1M)`, { param })
  return span
}

/** The candle table with the widest timeframe whose buckets tile `span`. */
export function candleSourceFor(span: Span): { table: string; timeframe: string } {
  for (let i = TIMEFRAME_NAMES.length - 1; i >= 0; i--) {
    const tf = TIMEFRAMES[TIMEFRAME_NAMES[i]!]
    if (isWholeMultiple(span, tf.span)) return { table: tf.table, timeframe: tf.name }
  }
  throw new Error(`no candle table tiles ${span.n}${span.unit}`)
}

/** Hourly roll-ups serve spans made of whole hours (months too); shorter spans read the raw table. */
function hourly(span: Span): boolean {
  return isWholeMultiple(span, HOUR)
}

interface Keyed {
  readonly k: string
  readonly t: number
}

type Values = Map<string, Record<string, number | null>>

const key = (exchange: string, symbol: string, t: number) => `${exchange}|${symbol}|${t}`

/** Runs one per-market query and files its rows under `exchange|symbol|t`. */
async function perMarket(
  store: Store,
  sql: string,
  params: Record<string, string | number | readonly string[] | readonly number[]>,
  into: Values
): Promise<void> {
  const rows = await store.query<Keyed & Record<string, number | null> & { exchange: string; symbol: string }>(
    sql,
    params
  )
  for (const r of rows) {
    const { exchange, symbol, t, ...rest } = r
    const k = key(exchange, symbol, t)
    into.set(k, { ...into.get(k), ...rest })
  }
}

export async function alignedRows(store: Store, req: AlignedRequest): Promise<AlignedRow[]> {
  const { span, fields } = req
  const tb = bucketSql('bucket', span)
  const tsb = bucketSql('toDateTime(ts)', span)
  const range = { from: dateTimeSeconds(req.fromMs, 'ceil'), to: dateTimeSeconds(req.toMs, 'ceil') }
  const inRange = `bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')`
  const tsInRange = `ts >= toDateTime({from:UInt32}, 'UTC') AND ts < toDateTime({to:UInt32}, 'UTC')`
  const mf = marketsCondition(req.markets)
  const params = { ...range, ...mf.params }
  const kb = req.knownByMs
  // raw reads: the rows received by known_by (bound as `known`)
  const rawKnown = kb === undefined ? '' : ` AND ingest_ts <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')`
  const rawParams = kb === undefined ? params : { ...params, known: kb }
  const values: Values = new Map()
  const jobs: Promise<void>[] = []
  // without known_by the table itself, the read dispatched at once (the plain path's timing and SQL)
  const via = (table: string, load: () => Promise<KnownFrom>, run: (src: KnownFrom) => Promise<void>) =>
    kb === undefined ? run({ from: table, params: {} }) : load().then(run)
  if (fields.has('ohlcv')) {
    const tf = TIMEFRAMES[candleSourceFor(span).timeframe as keyof typeof TIMEFRAMES]
    jobs.push(
      via(
        tf.table,
        () => candleFrom(store, tf, req.fromMs, req.toMs, kb),
        (src) =>
          perMarket(
            store,
            `SELECT exchange, symbol, toUnixTimestamp(${tb}) * 1000 AS t, argMinMerge(open) AS o, max(high) AS h,
           min(low) AS l, argMaxMerge(close) AS c, sum(volume_base) AS vb, sum(volume_quote) AS vq, sum(trades) AS n
         FROM ${src.from} WHERE ${mf.sql} AND ${inRange} GROUP BY exchange, symbol, t`,
            { ...params, ...src.params },
            values
          )
      )
    )
  }
  const h = hourly(span)
  const within = { fromMs: req.fromMs, toMs: req.toMs }
  if (fields.has('funding_rate')) {
    jobs.push(
      h
        ? via(
            'funding_1h',
            () => fundingFrom(store, 'funding_1h', within, kb),
            (src) =>
              perMarket(
                store,
                `SELECT exchange, symbol, toUnixTimestamp(${tb}) * 1000 AS t, argMaxMerge(rate_last) AS fr
             FROM ${src.from} WHERE ${mf.sql} AND ${inRange} GROUP BY exchange, symbol, t`,
                { ...params, ...src.params },
                values
              )
          )
        : perMarket(
            store,
            `SELECT exchange, symbol, toUnixTimestamp(${tsb}) * 1000 AS t, argMax(funding_rate, ts) AS fr
             FROM funding WHERE ${mf.sql} AND ${tsInRange}${rawKnown} GROUP BY exchange, symbol, t`,
            rawParams,
            values
          )
    )
  }
  if (fields.has('open_interest')) {
    jobs.push(
      h
        ? via(
            'open_interest_1h',
            () => openInterestFrom(store, req.fromMs, req.toMs, kb),
            (src) =>
              perMarket(
                store,
                `SELECT exchange, symbol, toUnixTimestamp(${tb}) * 1000 AS t, argMaxMerge(oi_usd_last) AS oi, argMaxMerge(oi_base_last) AS oib
             FROM ${src.from} WHERE ${mf.sql} AND ${inRange} GROUP BY exchange, symbol, t`,
                { ...params, ...src.params },
                values
              )
          )
        : perMarket(
            store,
            `SELECT exchange, symbol, toUnixTimestamp(${tsb}) * 1000 AS t, argMax(oi_usd, ts) AS oi, argMax(oi_base, ts) AS oib
             FROM open_interest WHERE ${mf.sql} AND ${tsInRange}${rawKnown} GROUP BY exchange, symbol, t`,
            rawParams,
            values
          )
    )
  }
  if (fields.has('liquidations')) {
    jobs.push(
      h
        ? via(
            'liquidations_1h',
            () => liquidationsFrom(store, req.fromMs, req.toMs, kb),
            (src) =>
              perMarket(
                store,
                `SELECT exchange, symbol, toUnixTimestamp(${tb}) * 1000 AS t, sumIf(usd, side = 'sell') AS ll, sumIf(usd, side = 'buy') AS ls
             FROM ${src.from} WHERE ${mf.sql} AND ${inRange} GROUP BY exchange, symbol, t`,
                { ...params, ...src.params },
                values
              )
          )
        : perMarket(
            store,
            `SELECT exchange, symbol, toUnixTimestamp(${tsb}) * 1000 AS t, sumIf(price * qty, side = 'sell') AS ll, sumIf(price * qty, side = 'buy') AS ls
             FROM liquidations WHERE ${mf.sql} AND ${tsInRange}${rawKnown} GROUP BY exchange, symbol, t`,
            rawParams,
            values
          )
    )
  }
  const whale = new Map<string, number>()
  if (fields.has('whale_flow')) {
    const bases = [...new Set(req.markets.map((m) => m.base))]
    const whaleSrc = !h
      ? null
      : kb === undefined
        ? { from: 'whale_flows_1h', params: {} }
        : await whaleFrom(store, 'whale_flows_1h', req.fromMs, req.toMs, kb)
    jobs.push(
      ...bases.map(async (base) => {
        const rows = await store.query<{ t: number; net: number }>(
          whaleSrc
            ? `SELECT toUnixTimestamp(${tb}) * 1000 AS t, sum(usd_in) - sum(usd_out) AS net
               FROM ${whaleSrc.from} WHERE token IN {tokens:Array(String)} AND ${inRange} GROUP BY t`
            : `SELECT toUnixTimestamp(${tsb}) * 1000 AS t,
                 sumIf(usd_value, event_type = 'transfer_in') - sumIf(usd_value, event_type = 'transfer_out') AS net
               FROM whale_transfers WHERE token IN {tokens:Array(String)} AND ${tsInRange}${rawKnown} GROUP BY t`,
          {
            ...range,
            tokens: tokensOf(base),
            ...(whaleSrc ? whaleSrc.params : kb === undefined ? {} : { known: kb })
          }
        )
        for (const r of rows) whale.set(`${base}|${r.t}`, r.net)
      })
    )
  }
  await Promise.all(jobs)

  const grid = bucketStarts(req.fromMs, req.toMs, span)
  const out: AlignedRow[] = []
  for (const m of req.markets) {
    for (const t of grid) {
      const v = values.get(key(m.exchange, m.symbol, t))
      const row: AlignedRow = { timestamp: t, symbol: m.symbol, base: m.base, exchange: m.exchange }
      if (fields.has('ohlcv')) {
        const has = v !== undefined && v['o'] !== undefined
        row['open'] = has ? v['o']! : null
        row['high'] = has ? v['h']! : null
        row['low'] = has ? v['l']! : null
        row['close'] = has ? v['c']! : null
        row['volume_base'] = has ? v['vb']! : null
        row['volume_quote'] = has ? v['vq']! : null
        row['trades'] = has ? v['n']! : null
      }
      if (fields.has('funding_rate')) row['funding_rate'] = v?.['fr'] ?? null
      if (fields.has('open_interest')) {
        row['open_interest'] = v?.['oi'] ?? null
        row['open_interest_base'] = v?.['oib'] ?? null
      }
      if (fields.has('liquidations')) {
        row['liquidations_long_usd'] = v?.['ll'] ?? null
        row['liquidations_short_usd'] = v?.['ls'] ?? null
      }
      if (fields.has('whale_flow')) row['whale_flow'] = whale.get(`${m.base}|${t}`) ?? null
      out.push(row)
    }
  }
  return out
}
