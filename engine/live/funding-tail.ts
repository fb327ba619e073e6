/**
 * @module
 * A market's live funding history as the cache of engine/live/funding-history.ts keeps it: the hourly last
 * rates of the last 30 days (what engine/live/books-load.ts `loadFundingHistory` gives with live bounds) and,
 * for the recent hours, the time of each hour's last reading, so that readings the store has not written
 * yet can be merged in and later readings folded.
 *
 * An hour's last rate is the rate of its reading with the greatest `ts` (the store's `argMax(rate, ts)`):
 * hours before `rawFromMs` are read from `funding_1h`, hours from it on from the raw readings with the
 * time of their last one. On a store holding the same readings both give the same rates.
 */
import type { Store } from '../store/store.js'
import { fundingWindowStart } from './books-load.js'
import { HOUR_MS } from './load-bounds.js'

/** A funding reading reduced to what the history keeps: its hour's start (ms), its time (ms), its rate. */
export interface Reading {
  readonly hourMs: number
  readonly ts: number
  readonly rate: number
}

export interface FundingTail {
  /** the hourly last rates, oldest hour first */
  readonly rates: number[]
  /** the first hour start the window holds, ms */
  readonly fromMs: number
  /** the newest hour's start, ms (-Infinity when there is none) */
  readonly lastHourMs: number
  /** the newest hour's last reading time, ms (-Infinity when there is no hour, NaN when unknown) */
  readonly lastTs: number
}

/** What a load read: the window's older hours from `funding_1h`, the recent ones from the raw readings. */
export interface FundingRows {
  readonly fromMs: number
  readonly rawFromMs: number
  readonly agg: readonly { h: number; r: number }[]
  /** per hour from `rawFromMs`: start (s), last rate, last reading time (ms) */
  readonly raw: readonly { h: number; r: number; t: number }[]
}

/** Reads a market's history at `nowMs`; hours from `rawFromMs` (an hour start, ms) on from the raw readings. */
export async function loadFundingRows(
  store: Store,
  exchange: string,
  symbol: string,
  nowMs: number,
  rawFromMs: number
): Promise<FundingRows> {
  const fromMs = fundingWindowStart(nowMs)
  const from = Math.max(fromMs, rawFromMs)
  // nothing is stored before the epoch (DateTime columns)
  const params = { exchange, symbol, fromS: Math.max(0, fromMs / 1000), rawS: Math.max(0, from / 1000) }
  const agg = await store.query<{ h: number; r: number }>(
    `SELECT toUnixTimestamp(bucket) AS h, argMaxMerge(rate_last) AS r FROM funding_1h
     WHERE exchange = {exchange:String} AND symbol = {symbol:String}
       AND bucket >= toDateTime({fromS:UInt32}, 'UTC') AND bucket < toDateTime({rawS:UInt32}, 'UTC')
     GROUP BY bucket ORDER BY bucket`,
    params
  )
  const raw = await store.query<{ h: number; r: number; t: number | string }>(
    `SELECT toUnixTimestamp(toStartOfHour(ts)) AS h, argMax(funding_rate, ts) AS r,
       toUnixTimestamp64Milli(max(ts)) AS t FROM funding
     WHERE exchange = {exchange:String} AND symbol = {symbol:String} AND ts >= toDateTime64({rawS:UInt32}, 3, 'UTC')
     GROUP BY h ORDER BY h`,
    params
  )
  return { fromMs, rawFromMs: from, agg, raw: raw.map((x) => ({ h: Number(x.h), r: x.r, t: Number(x.t) })) }
}

/**
 * The history of `rows` with `pending` (readings applied, maybe not yet written) merged in: each replaces
 * its hour's last rate when newer than the hour's last stored reading. `exact` is false when the merge
 * cannot tell what the store will hold: a pending reading of an hour read from `funding_1h` (no reading
 * time there), or one as new as the hour's last stored reading with another rate (the store's tie).
 */
export function mergeReadings(rows: FundingRows, pending: readonly Reading[]): { tail: FundingTail; exact: boolean } {
  const hours = new Map<number, { r: number; t: number }>()
  for (const x of rows.raw) hours.set(x.h * 1000, { r: x.r, t: x.t })
  let exact = true
  for (const p of pending) {
    if (p.hourMs < rows.fromMs) continue
    if (p.hourMs < rows.rawFromMs) {
      exact = false
      continue
    }
    const held = hours.get(p.hourMs)
    if (!held || p.ts > held.t) hours.set(p.hourMs, { r: p.rate, t: p.ts })
    else if (p.ts === held.t && p.rate !== held.r) exact = false
  }
  const recent = [...hours].sort((a, b) => a[0] - b[0])
  const rates = [...rows.agg.map((x) => x.r), ...recent.map(([, v]) => v.r)]
  const last = recent[recent.length - 1]
  const aggLast = rows.agg[rows.agg.length - 1]
  const tail: FundingTail = last
    ? { rates, fromMs: rows.fromMs, lastHourMs: last[0], lastTs: last[1].t }
    : aggLast
      ? { rates, fromMs: rows.fromMs, lastHourMs: aggLast.h * 1000, lastTs: NaN }
      : { rates, fromMs: rows.fromMs, lastHourMs: -Infinity, lastTs: -Infinity }
  return { tail, exact }
}

/**
 * The history with `r` folded in, or null when it cannot be kept current without a load: a newer reading
 * of the newest hour replaces its last rate, a reading of a later hour appends one, an older one of the
 * newest hour changes nothing; a reading of an earlier hour (late) or one as new as the newest with another
 * rate (or when the newest time is unknown) needs a load.
 */
export function foldReading(t: FundingTail, r: Reading): FundingTail | null {
  if (r.hourMs < t.fromMs) return t
  // an empty history's newest hour is -Infinity: its first reading appends
  if (r.hourMs > t.lastHourMs) {
    return { rates: [...t.rates, r.rate], fromMs: t.fromMs, lastHourMs: r.hourMs, lastTs: r.ts }
  }
  if (r.hourMs < t.lastHourMs) return null
  if (r.ts > t.lastTs) {
    return { rates: [...t.rates.slice(0, -1), r.rate], fromMs: t.fromMs, lastHourMs: t.lastHourMs, lastTs: r.ts }
  }
  if (r.ts < t.lastTs) return t
  return r.ts === t.lastTs && r.rate === t.rates[t.rates.length - 1] ? t : null
}

/** The hour start (ms) of a reading at `ts` (ms). */
export const hourOf = (ts: number): number => Math.floor(ts / HOUR_MS) * HOUR_MS
