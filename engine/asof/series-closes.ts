/**
 * @module
 * The hourly closes a run of moments (`confirmSeries`) needs, without reading the run's trades raw. At step
 * i an hour's close is what `confirmAt` at that step reads (engine/live/screener-load.ts): the `candles_1h`
 * close when the known-at ledger says the hour is complete by then (ended by T_i, no row received after
 * K_i), else the newest trade of the hour with `ts <= T_i` and `ingest_ts <= K_i`. So:
 * - one ledger read gives each hour's first complete step (`completeFrom`), one `candles_1h` read the
 *   closes of the hours once complete;
 * - an hour not complete at a step needs only its newest usable trade: the trades of the last TAIL_MS up to
 *   the step (or the hour's end) are read, grouped per market, hour and effective step (engine/asof/
 *   series-load.ts); where a market has no usable trade in that tail, the rest of the hour up to the tail is
 *   read in a second query, so every answer is the newest usable trade of the hour whatever the density.
 * A step's close is exact under either source: the newest of newest readings.
 */
import type { Store } from '../store/store.js'
import { nativeBlocks } from '../export/native-blocks.js'
import { HOUR_MS, SERIES_READ_SETTINGS, usableAt, type Group, type HourParts, type SeriesGrid } from './series-load.js'

/** How far back from a step (or an hour's end) the newest usable trade is first looked for, ms. */
export const TAIL_MS = 10 * 60_000

/** A market's groups of one hour, sorted by effective step, each carrying the newest reading up to it. */
type Lists = Map<string, Map<number, Group[]>>

export interface SeriesCloses {
  /** every market (exchange|symbol) with a close in the run */
  readonly markets: ReadonlyMap<string, { readonly exchange: string; readonly symbol: string }>
  /** the close of `key`'s hour `h` (epoch hour) at step i, or undefined */
  close(key: string, h: number, i: number): number | undefined
}

/** An event-time range [fromMs, toMs], inclusive, epoch ms. */
type Range = readonly [number, number]

/**
 * Per hour from `firstHour` to `lastHour`, the hull of the ranges falling in it (each range lies in one
 * hour): what `groupedRows` reads of that hour. Rows of the hull outside every range are real rows too, so
 * reading them changes no newest-usable answer.
 */
function hulls(ranges: readonly Range[], firstHour: number, lastHour: number): HourParts {
  const lo: number[] = Array.from({ length: lastHour - firstHour + 1 }, () => 1)
  const hi: number[] = lo.map(() => 0)
  for (const [a, b] of ranges) {
    const j = Math.floor(a / HOUR_MS) - firstHour
    if (lo[j]! > hi[j]!) {
      lo[j] = a
      hi[j] = b
    } else {
      lo[j] = Math.min(lo[j]!, a)
      hi[j] = Math.max(hi[j]!, b)
    }
  }
  return { firstHour, lo, hi }
}

/** The step index of the first step at or after `ms` (0 when before the first). */
function stepAtOrAfter(g: SeriesGrid, ms: number): number {
  return ms <= g.startMs ? 0 : Math.ceil((ms - g.startMs) / g.stepMs)
}

/** Groups per market and hour, sorted by step, newest reading carried forward (as series-load's index). */
function lists(groups: readonly Group[], into: Lists = new Map()): Lists {
  for (const x of groups) {
    const k = `${x.exchange}|${x.symbol}`
    let m = into.get(k)
    if (!m) into.set(k, (m = new Map()))
    const l = m.get(x.h)
    if (l) l.push(x)
    else m.set(x.h, [x])
  }
  for (const m of into.values()) {
    for (const l of m.values()) {
      l.sort((a, b) => a.e - b.e || a.ts - b.ts)
      for (let j = 1; j < l.length; j++) if (l[j - 1]!.ts > l[j]!.ts) l[j] = { ...l[j - 1]!, e: l[j]!.e }
    }
  }
  return into
}

/**
 * The raw trades of the base in the parts of hours given, grouped per market, hour and effective step
 * (series-load.ts `groupedRows`).
 */
export type RawGroups = (parts: HourParts) => Promise<Group[]>

export async function loadCloses(
  store: Store,
  base: string,
  g: SeriesGrid,
  firstHour: number,
  /** the hours of the window of step i: [fromHour(i), nowHour(i)] */
  windowOf: (i: number) => readonly [number, number],
  rawGroups: RawGroups
): Promise<SeriesCloses> {
  const lastMs = g.startMs + (g.n - 1) * g.stepMs
  const lastHour = Math.floor(lastMs / HOUR_MS)
  // the ledger of the trades' hours (k 0: latest receive time, epoch ms) and the candles' closes (k 1), one
  // statement read in the Native format (typed columns, no JSON text to format or parse)
  const lastKnown = new Map<number, number>()
  const candles: { exchange: string; symbol: string; h: number; v: number }[] = []
  const sql = `SELECT toUInt8(0) AS k, '' AS exchange, '' AS symbol, toInt32(intDiv(toUnixTimestamp(bucket), 3600)) AS h,
            toFloat64(toUnixTimestamp64Milli(max(last_known))) AS v
     FROM known_at_1h
     WHERE tbl = 'trades' AND bucket >= toDateTime({fromS:UInt32}, 'UTC') AND bucket <= toDateTime({toS:UInt32}, 'UTC')
     GROUP BY bucket
     UNION ALL
     SELECT toUInt8(1) AS k, CAST(exchange AS String) AS exchange, CAST(symbol AS String) AS symbol,
            toInt32(intDiv(toUnixTimestamp(bucket), 3600)) AS h, toFloat64(argMaxMerge(close)) AS v
     FROM candles_1h
     WHERE base = {base:String} AND bucket >= toDateTime({fromS:UInt32}, 'UTC') AND bucket <= toDateTime({toS:UInt32}, 'UTC')
     GROUP BY exchange, symbol, bucket${SERIES_READ_SETTINGS}`
  const params = { base, fromS: Math.max(0, firstHour * 3600), toS: Math.max(0, lastHour * 3600) }
  for await (const block of nativeBlocks(store.stream(sql, params, 'Native'))) {
    const [k, x, s, h, v] = block.columns.map((c) => c.values) as [
      Uint8Array,
      string[],
      string[],
      Int32Array,
      Float64Array
    ]
    for (let j = 0; j < block.rows; j++) {
      if (k[j] === 0) lastKnown.set(h[j]!, v[j]!)
      else candles.push({ exchange: x[j]!, symbol: s[j]!, h: h[j]!, v: v[j]! })
    }
  }
  /** the first step at which hour h is complete (engine/asof/known-at.ts `completeHours`); n: never in the run */
  const completeFrom = new Map<number, number>()
  for (let h = firstHour; h <= lastHour; h++) {
    const ended = h * HOUR_MS + HOUR_MS - 1
    const k = lastKnown.get(h)
    let from: number
    if (g.knownByMs === undefined) from = stepAtOrAfter(g, k === undefined ? ended : Math.max(ended, k))
    else from = k !== undefined && k > g.knownByMs ? g.n : stepAtOrAfter(g, ended)
    completeFrom.set(h, Math.min(from, g.n))
  }
  const done = (h: number, i: number): boolean => i >= (completeFrom.get(h) ?? g.n)
  const markets = new Map<string, { exchange: string; symbol: string }>()
  const agg = new Map<string, Map<number, number>>()
  for (const r of candles) {
    const k = `${r.exchange}|${r.symbol}`
    markets.set(k, { exchange: r.exchange, symbol: r.symbol })
    let m = agg.get(k)
    if (!m) agg.set(k, (m = new Map()))
    m.set(r.h, r.v)
  }
  // the tail of each hour not complete at a step: [max(hour start, T_i - TAIL_MS), min(hour end, T_i)]
  const stepOf = (i: number): number => g.startMs + i * g.stepMs
  const tailOf = (h: number, i: number): Range => {
    const t = stepOf(i)
    const to = Math.min(h * HOUR_MS + HOUR_MS - 1, t)
    return [Math.max(h * HOUR_MS, to - TAIL_MS), to]
  }
  const open: [number, number][] = []
  for (let i = 0; i < g.n; i++) {
    const [from, to] = windowOf(i)
    for (let h = from; h <= to; h++) if (!done(h, i)) open.push([h, i])
  }
  const raw = lists(
    open.length
      ? await rawGroups(
          hulls(
            open.map(([h, i]) => tailOf(h, i)),
            firstHour,
            lastHour
          )
        )
      : []
  )
  // where a market's tail held no usable trade, the hour from its start up to the tail is read too
  const more: Range[] = []
  for (const [h, i] of open) {
    const [a] = tailOf(h, i)
    if (a === h * HOUR_MS) continue // the tail is the whole usable part of the hour
    for (const [k, closes] of agg) {
      if (!closes.has(h)) continue // no trade of that market in the hour
      const x = usableAt(raw.get(k)?.get(h), i)
      if (!x || x.ts < a) {
        more.push([h * HOUR_MS, a - 1])
        break
      }
    }
  }
  if (more.length) lists(await rawGroups(hulls(more, firstHour, lastHour)), raw)
  for (const [k, m] of raw) {
    const x = m.values().next().value?.[0]
    if (x && !markets.has(k)) markets.set(k, { exchange: x.exchange, symbol: x.symbol })
  }
  return {
    markets,
    close: (key, h, i) => (done(h, i) ? agg.get(key)?.get(h) : usableAt(raw.get(key)?.get(h), i)?.a)
  }
}
