/**
 * @module
 * Known-at: when the service received each stored record. Every raw table keeps `ingest_ts` (the moment
 * the row reached the store) beside its event time `ts`; the ledger `known_at_1h` (schemas/023_known_at.sql)
 * keeps, per raw table and event-time hour, the latest receive time of its rows. A point-in-time read with
 * `known_by` K uses an hour's aggregate (candles_1h, funding_1h, open_interest_1h, ...) only when that hour
 * is complete by K: it ended by the answer's moment and every row of it was received by K (`last_known <=
 * K`). Every other hour (`lateHours`) is recomputed from raw rows with `ingest_ts <= K`, so a later import
 * or gap fill never changes an earlier answer. Rows stored before the ledger existed are not in it and
 * count as known.
 */
import type { Store } from '../store/store.js'

/** The raw tables the ledger covers (each has `ts` and `ingest_ts`). */
export const KNOWN_AT_TABLES = [
  'trades',
  'funding',
  'open_interest',
  'long_short',
  'liquidations',
  'option_quotes',
  'whale_transfers',
  'onchain_metrics'
] as const
export type KnownAtTable = (typeof KNOWN_AT_TABLES)[number]

const HOUR_MS = 3_600_000

/**
 * Event-time hours of `table` in [fromMs, toMs) holding a row received after `knownByMs`, as epoch ms of
 * each hour's start, ascending. Their aggregates include rows not known by then: read them raw.
 */
export async function lateHours(
  store: Store,
  table: KnownAtTable,
  fromMs: number,
  toMs: number,
  knownByMs: number
): Promise<number[]> {
  if (toMs <= fromMs) return []
  const rows = await store.query<{ h: number }>(
    `SELECT toUnixTimestamp(bucket) * 1000 AS h FROM known_at_1h
     WHERE tbl = {tbl:String}
       AND bucket >= toStartOfHour(fromUnixTimestamp64Milli({from:Int64}, 'UTC'))
       AND bucket < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
     GROUP BY bucket HAVING max(last_known) > fromUnixTimestamp64Milli({known:Int64}, 'UTC')
     ORDER BY bucket`,
    { tbl: table, from: fromMs, to: toMs, known: knownByMs }
  )
  return rows.map((r) => Number(r.h))
}

/**
 * The hours of [fromMs, toMs) that a point-in-time read with moment `asOfMs` and knowledge `knownByMs` may
 * take from an aggregate: whole hours ended by `asOfMs` and not late. The rest of the range (late hours and
 * the hour holding `asOfMs`) is read raw. Ascending epoch ms of hour starts.
 */
export async function completeHours(
  store: Store,
  table: KnownAtTable,
  fromMs: number,
  toMs: number,
  asOfMs: number,
  knownByMs: number
): Promise<{ readonly complete: number[]; readonly raw: number[] }> {
  const first = Math.floor(fromMs / HOUR_MS) * HOUR_MS
  const end = Math.min(toMs, asOfMs + 1)
  const late = new Set(await lateHours(store, table, first, end, knownByMs))
  const complete: number[] = []
  const raw: number[] = []
  for (let h = first; h < end; h += HOUR_MS) {
    if (h + HOUR_MS <= asOfMs + 1 && !late.has(h)) complete.push(h)
    else raw.push(h)
  }
  return { complete, raw }
}

/** Event time (epoch ms) of the oldest row of `table` received by `knownByMs`, per the ledger; null when none. */
export async function oldestKnown(store: Store, table: KnownAtTable, knownByMs: number): Promise<number | null> {
  const rows = await store.query<{ h: number | null }>(
    `SELECT toUnixTimestamp(min(bucket)) * 1000 AS h FROM known_at_1h
     WHERE tbl = {tbl:String} AND first_known <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')
     HAVING count() > 0`,
    { tbl: table, known: knownByMs }
  )
  return rows.length === 0 || rows[0]!.h === null ? null : Number(rows[0]!.h)
}
