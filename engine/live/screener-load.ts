/**
 * @module
 * What a live-state rebuild reads for the screener book, from aggregates and newest readings only, so its
 * cost does not grow with the day's trades:
 * - hourly quote volume and close (`candles_1h`) and hourly open interest (`open_interest_1h`), 49 hours;
 * - the newest funding, long/short and open-interest reading per market (two days);
 * - each perpetual market's newest trade time, in milliseconds (the live path's `updated` and the time of
 *   its last price): the newest hour comes with the hourly rows, the newest minute in it from `candles_1m`,
 *   and only the trades of that minute are read raw.
 * The screener's 24-hour figures are hour-aligned (the current hour and the 23 before it), so no window
 * edge falls inside an aggregated bucket; the live path uses the same buckets (screener-book.ts).
 * At a point in time (engine/live/load-bounds.ts) the same figures use only rows with `ts <= asOf` and
 * `ingest_ts <= knownBy`: an hour's aggregate when the known-at ledger says the hour is complete, else
 * its raw rows; each market's newest trade is read raw in its newest hour.
 */
import type { NormalizedRecord } from '../records/types.js'
import type { Store } from '../store/store.js'
import { completeHours } from '../asof/known-at.js'
import {
  basesSql,
  boundParams,
  HOUR_MS,
  knownSql,
  liveBounds,
  rawSpan,
  rawSpanSql,
  type LoadBounds
} from './load-bounds.js'

/** Hourly history the screener needs: 48 h for the volume comparison plus the current hour. */
const SCREENER_HOURS = 49
const MINUTE_S = 60
/** How far back the newest funding, long/short and open-interest readings are looked for, ms. */
const LATEST_MS = 2 * 86_400_000

/** One hour of one market. */
export interface Hourly {
  readonly exchange: string
  readonly symbol: string
  readonly base: string
  /** epoch hour */
  readonly h: number
  /** quote volume of the hour, USD */
  readonly v: number
  readonly oi: number | null
  readonly close: number | null
}

/** A market's newest trade, epoch ms. */
export interface LastTrade {
  readonly exchange: string
  readonly symbol: string
  readonly last_ms: number
}

export interface ScreenerLoad {
  readonly hourly: readonly Hourly[]
  readonly latest: readonly NormalizedRecord[]
  readonly lastTrades: readonly LastTrade[]
}

export async function loadScreener(store: Store, b: LoadBounds = liveBounds()): Promise<ScreenerLoad> {
  // newest reading per market; its time is aliased last_ms (an alias named ts would shadow the column)
  type Latest = Omit<NormalizedRecord, 'ts'> & { last_ms: number }
  const where = `ts >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')${knownSql(b)}${basesSql(b)}`
  const params = { ...boundParams(b), since: b.nowMs - LATEST_MS }
  // independent reads: concurrent on the store's session pool
  const [hourly, latest, lsr, oi] = await Promise.all([
    loadHourly(store, b),
    store.query<Latest>(
      `SELECT 'funding' AS kind, toUnixTimestamp64Milli(max(ts)) AS last_ms, exchange, symbol, base,
            argMax(funding_rate, ts) AS funding_rate, argMax(interval_hours, ts) AS interval_hours
     FROM funding WHERE ${where} GROUP BY exchange, symbol, base`,
      params
    ),
    store.query<Latest>(
      `SELECT 'long_short' AS kind, toUnixTimestamp64Milli(max(ts)) AS last_ms, exchange, symbol, base,
            argMax(long_short_ratio, ts) AS long_short_ratio
     FROM long_short WHERE ${where} GROUP BY exchange, symbol, base`,
      params
    ),
    store.query<Latest>(
      `SELECT 'open_interest' AS kind, toUnixTimestamp64Milli(max(ts)) AS last_ms, exchange, symbol, base,
            argMax(oi_base, ts) AS oi_base, argMax(oi_usd, ts) AS oi_usd
     FROM open_interest WHERE ${where} GROUP BY exchange, symbol, base`,
      params
    )
  ])
  return {
    hourly,
    latest: [...latest, ...lsr, ...oi].map(({ last_ms, ...r }) => ({ ...r, ts: last_ms }) as NormalizedRecord),
    lastTrades: b.pit ? await lastTradesAt(store, b, hourly) : await lastTrades(store, hourly)
  }
}

/** The first epoch hour of the screener's hourly window at `nowMs`: the current hour and the 48 before it. */
export function firstScreenerHour(nowMs: number): number {
  return Math.floor(nowMs / HOUR_MS) - (SCREENER_HOURS - 1)
}

/**
 * Hourly quote volume and close (trades) and last open interest (open_interest) of each market over the
 * screener's hours. Live: the aggregates. At a point in time: the aggregate of each hour complete by then
 * (engine/asof/known-at.ts) and the raw rows known by then for the others (the hour holding asOf, late hours).
 */
async function loadHourly(store: Store, b: LoadBounds): Promise<Hourly[]> {
  // nothing is stored before the epoch (DateTime columns): a window reaching before it starts there
  const fromS = Math.max(0, firstScreenerHour(b.nowMs) * 3600)
  const params: Record<string, number | string[] | number[]> = { ...boundParams(b), fromS }
  const bases = basesSql(b)
  const candles = `SELECT exchange, symbol, base, intDiv(toUnixTimestamp(bucket), 3600) AS h, sum(volume_quote) AS v,
              CAST(NULL AS Nullable(Float64)) AS oi, CAST(argMaxMerge(close) AS Nullable(Float64)) AS c
       FROM candles_1h WHERE bucket >= toDateTime({fromS:UInt32}, 'UTC')${bases}`
  const oiHours = `SELECT exchange, symbol, base, intDiv(toUnixTimestamp(bucket), 3600) AS h, 0 AS v,
              CAST(argMaxMerge(oi_usd_last) AS Nullable(Float64)) AS oi, CAST(NULL AS Nullable(Float64)) AS c
       FROM open_interest_1h WHERE bucket >= toDateTime({fromS:UInt32}, 'UTC')${bases}`
  const parts: string[] = []
  if (!b.pit) {
    parts.push(
      `${candles} GROUP BY exchange, symbol, base, bucket`,
      `${oiHours} GROUP BY exchange, symbol, base, bucket`
    )
  } else {
    const { asOfMs, knownByMs } = b.pit
    const [t, o] = await Promise.all([
      completeHours(store, 'trades', fromS * 1000, asOfMs + 1, asOfMs, knownByMs),
      completeHours(store, 'open_interest', fromS * 1000, asOfMs + 1, asOfMs, knownByMs)
    ])
    const secs = (hours: readonly number[]): number[] => hours.map((h) => h / 1000)
    if (t.complete.length) {
      params['tc'] = secs(t.complete)
      parts.push(`${candles} AND toUnixTimestamp(bucket) IN {tc:Array(UInt32)} GROUP BY exchange, symbol, base, bucket`)
    }
    if (t.raw.length) {
      params['tr'] = secs(t.raw)
      Object.assign(params, rawSpan('t', t.raw))
      parts.push(`SELECT exchange, symbol, base, intDiv(toUnixTimestamp(ts), 3600) AS h, sum(price * qty) AS v,
              CAST(NULL AS Nullable(Float64)) AS oi, CAST(argMax(price, ts) AS Nullable(Float64)) AS c
       FROM trades WHERE ts >= toDateTime64({fromS:UInt32}, 3, 'UTC')${rawSpanSql('t')}
         AND toUnixTimestamp(toStartOfHour(ts)) IN {tr:Array(UInt32)}${knownSql(b)}${bases}
       GROUP BY exchange, symbol, base, h`)
    }
    if (o.complete.length) {
      params['oc'] = secs(o.complete)
      parts.push(`${oiHours} AND toUnixTimestamp(bucket) IN {oc:Array(UInt32)} GROUP BY exchange, symbol, base, bucket`)
    }
    if (o.raw.length) {
      params['or'] = secs(o.raw)
      Object.assign(params, rawSpan('o', o.raw))
      parts.push(`SELECT exchange, symbol, base, intDiv(toUnixTimestamp(ts), 3600) AS h, 0 AS v,
              CAST(argMax(oi_usd, ts) AS Nullable(Float64)) AS oi, CAST(NULL AS Nullable(Float64)) AS c
       FROM open_interest WHERE ts >= toDateTime64({fromS:UInt32}, 3, 'UTC')${rawSpanSql('o')}
         AND toUnixTimestamp(toStartOfHour(ts)) IN {or:Array(UInt32)}${knownSql(b)}${bases}
       GROUP BY exchange, symbol, base, h`)
    }
    if (parts.length === 0) return []
  }
  return store.query<Hourly>(
    `SELECT exchange, symbol, base, h, sum(v) AS v, max(oi) AS oi, max(c) AS close FROM (
       ${parts.join('\n       UNION ALL\n       ')}
     ) GROUP BY exchange, symbol, base, h`,
    params
  )
}

/**
 * Each market's newest perpetual trade known at a point in time: read raw in its newest hour with trades
 * (from `hourly`, which the same bounds produced).
 */
async function lastTradesAt(store: Store, b: LoadBounds, hourly: readonly Hourly[]): Promise<LastTrade[]> {
  const newest = newestHours(hourly)
  if (newest.length === 0) return []
  return store.query<LastTrade>(
    `SELECT exchange, symbol, toUnixTimestamp64Milli(max(ts)) AS last_ms FROM trades
     WHERE ts >= toDateTime64({from:UInt32}, 3, 'UTC') AND market = 'perp'${knownSql(b)}${basesSql(b)}
       AND concat(exchange, '|', symbol, '|', toString(toUnixTimestamp(toStartOfHour(ts)))) IN {keys:Array(String)}
     GROUP BY exchange, symbol`,
    {
      ...boundParams(b),
      from: Math.min(...newest.map((x) => x.h)) * 3600,
      keys: newest.map((x) => keyOf(x.exchange, x.symbol, x.h * 3600))
    }
  )
}

/** Each market's newest hour with trades (a close) among `hourly`. */
function newestHours(hourly: readonly Hourly[]): { exchange: string; symbol: string; h: number }[] {
  const newestHour = new Map<string, { exchange: string; symbol: string; h: number }>()
  for (const r of hourly) {
    if (r.close === null) continue // an hour with open interest only
    const k = `${r.exchange}|${r.symbol}`
    const n = newestHour.get(k)
    if (!n || r.h > n.h) newestHour.set(k, { exchange: r.exchange, symbol: r.symbol, h: r.h })
  }
  return [...newestHour.values()]
}

const keyOf = (exchange: string, symbol: string, bucketS: number): string => `${exchange}|${symbol}|${bucketS}`

/**
 * Each market's newest trade time: its newest hour with volume (from `hourly`), the newest minute in that
 * hour (`candles_1m`), then the newest perpetual trade in that minute, read raw (one minute per market:
 * the raw read does not grow with the day). Markets sharing a newest minute are read by one range.
 */
async function lastTrades(store: Store, hourly: readonly Hourly[]): Promise<LastTrade[]> {
  const hours = newestHours(hourly)
  if (hours.length === 0) return []
  const minutes = await store.query<{ exchange: string; symbol: string; m: number }>(
    `SELECT exchange, symbol, toUnixTimestamp(max(bucket)) AS m FROM candles_1m
     WHERE bucket >= toDateTime({from:UInt32}, 'UTC')
       AND concat(exchange, '|', symbol, '|', toString(toUnixTimestamp(toStartOfHour(bucket)))) IN {keys:Array(String)}
     GROUP BY exchange, symbol`,
    {
      from: Math.min(...hours.map((x) => x.h)) * 3600,
      keys: hours.map((x) => keyOf(x.exchange, x.symbol, x.h * 3600))
    }
  )
  if (minutes.length === 0) return []
  const distinct = [...new Set(minutes.map((x) => x.m))]
  // one ts range per distinct newest minute (bound as numbered parameters), so only those minutes are read
  const ranges = distinct.map(
    (_, i) =>
      `(ts >= toDateTime64({m${i}:UInt32}, 3, 'UTC') AND ts < toDateTime64({m${i}:UInt32} + ${MINUTE_S}, 3, 'UTC'))`
  )
  const params: Record<string, number | string[]> = {
    keys: minutes.map((x) => keyOf(x.exchange, x.symbol, x.m))
  }
  distinct.forEach((m, i) => (params[`m${i}`] = m))
  return store.query<LastTrade>(
    `SELECT exchange, symbol, toUnixTimestamp64Milli(max(ts)) AS last_ms FROM trades
     WHERE (${ranges.join(' OR ')}) AND market = 'perp'
       AND concat(exchange, '|', symbol, '|', toString(toUnixTimestamp(toStartOfMinute(ts)))) IN {keys:Array(String)}
     GROUP BY exchange, symbol`,
    params
  )
}
