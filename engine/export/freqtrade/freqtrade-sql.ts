/**
 * @module
 * The freqtrade layout's queries (candles, funding settlements, mark candles), in Native format with declared casts (columns.ts), and their reads with
 * merged parts pinned (pinned-parts.ts, as the candle export does in export-run.ts): rows before the cut
 * come from the pinned parts without `FINAL`, the rest through `FINAL`; once the first block shows the
 * query has its snapshot of parts, the pin is checked still valid, else the query restarts with `FINAL`
 * everywhere before anything was yielded. Bound parameters: `syms` (market names, the 1-based index `m`),
 * `bases`, the markets' `ex`/`sym`, `from`/`to` (epoch s), and `parts`/`cut` when pinned.
 */
import type { Params, Store } from '../../store/store.js'
import { exportSql } from '../candle-sql.js'
import { exportSelect, type ExportColumn } from '../columns.js'
import { EMBEDDED_READ_SETTINGS, NATIVE_SETTINGS, settingsClause } from '../formats.js'
import { NO_PIN, pinnedBody, pinnedRead } from '../pinned-parts.js'

/** The candle query's columns: `m` (1-based market index), `date` (ns), open, high, low, close, volume (base units). */
export const CANDLE_COLUMNS: readonly ExportColumn[] = [
  { name: 'm', type: 'UInt32' },
  { name: 'date', type: 'Int64' },
  ...['open', 'high', 'low', 'close', 'volume'].map((name) => ({ name, type: 'Float64' as const }))
]

/** The funding query's columns: `m`, `s` (hour start, epoch s), `rate` (the hour's last reading), `ih` (interval hours). */
export const FUNDING_COLUMNS: readonly ExportColumn[] = [
  { name: 'm', type: 'UInt32' },
  { name: 's', type: 'UInt32' },
  { name: 'rate', type: 'Float64' },
  { name: 'ih', type: 'UInt32' }
]

/**
 * The 1-based index of the row's symbol in `syms` (0 when absent). `transform` looks the symbol up in a hash
 * table built once per query; `indexOf` scanned the array per row and cost about as much CPU as the rest
 * of the candle query (100 markets x 17,520 hours: ~3.0 vs ~1.4 CPU s, bench/history/freqtrade-export.ts).
 */
const MARKET_INDEX = 'transform(symbol, {syms:Array(String)}, arrayEnumerate({syms:Array(String)}), toUInt32(0))'

/** The candle export's query (candle-sql.ts) with the market index and `date` in ns. */
export function candleSql(table: string, marketsSql: string, pinned: boolean): string {
  return exportSelect(
    `SELECT ${MARKET_INDEX} AS m, timestamp * 1000000 AS date,
      open, high, low, close, volume_base AS volume
    FROM (${exportSql(table, marketsSql, pinned)})`,
    CANDLE_COLUMNS
  )
}

/**
 * The hours of funding_1h that end at a settlement, in key order; pinned as `exportSql` reads candles (a
 * UNION ALL of two key-ordered branches).
 */
export function fundingSql(marketsSql: string, pinned: boolean): string {
  const where = `base IN {bases:Array(String)} AND ${marketsSql}
        AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')`
  const states = `SELECT base, exchange, symbol, bucket, finalizeAggregation(rate_last) AS rate, interval_hours AS ih`
  const inner = pinned
    ? `${states} FROM funding_1h WHERE _part IN {parts:Array(String)} AND bucket < toDateTime({cut:UInt32}, 'UTC') AND ${where}
      UNION ALL
      ${states} FROM funding_1h FINAL PREWHERE bucket >= toDateTime({cut:UInt32}, 'UTC') WHERE ${where}`
    : `${states} FROM funding_1h FINAL WHERE ${where}`
  // only the hours that end at a settlement (a multiple of the interval since the epoch); pushed into both
  // branches, it is a PREWHERE on the pinned one and filters after the merge on the FINAL one
  return exportSelect(
    `SELECT ${MARKET_INDEX} AS m, toUInt32(bucket) AS s, rate, ih
     FROM (${inner})
     WHERE ih > 0 AND (toUInt32(bucket) + 3600) % (3600 * greatest(toUInt32(ih), 1)) = 0
     ORDER BY base, exchange, symbol, bucket`,
    FUNDING_COLUMNS
  )
}

/**
 * The hours of the raw `funding` table's mark prices as OHLCV candles (the candle query's columns): per
 * market and hour (bucket start `date`, ns) the first, highest, lowest and last mark price of the readings
 * in `[from, to)` (epoch s), volume 0; readings without a mark price are left out. The raw table is a plain
 * MergeTree (no states to merge, no pin): a reading stored twice changes no value. Sorted by the market
 * index, which is the markets' order (base, symbol; one exchange): sorting the grouped rows by the
 * LowCardinality names cost ~2/3 of the query's CPU (100 markets x 90 days of hourly readings).
 */
export function markSql(marketsSql: string, knownBy = false): string {
  // with `known_by`: only readings received by then ({known}, epoch ms)
  const known = knownBy ? ` AND ingest_ts <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')` : ''
  return exportSelect(
    `SELECT ${MARKET_INDEX} AS m, toInt64(toUnixTimestamp(h)) * 1000000000 AS date,
      o AS open, hi AS high, lo AS low, c AS close, 0 AS volume
    FROM (
      SELECT base, exchange, symbol, toStartOfHour(ts) AS h,
        argMin(p, ts) AS o, max(p) AS hi, min(p) AS lo, argMax(p, ts) AS c
      FROM (
        SELECT base, exchange, symbol, ts, assumeNotNull(mark_price) AS p FROM funding
        WHERE base IN {bases:Array(String)} AND ${marketsSql} AND mark_price IS NOT NULL
          AND ts >= toDateTime({from:UInt32}, 'UTC') AND ts < toDateTime({to:UInt32}, 'UTC')${known}
      )
      GROUP BY base, exchange, symbol, h
    )
    ORDER BY m, date`,
    CANDLE_COLUMNS
  )
}

/** The Native bytes of `sql` with the export's read settings. */
export function readNative(store: Store, sql: string, params: Params, signal: AbortSignal | undefined) {
  return store.stream(sql + nativeSettings(store), params, 'Native', signal)
}

function nativeSettings(store: Store): string {
  return settingsClause(store.kind === 'chdb' ? { ...NATIVE_SETTINGS, ...EMBEDDED_READ_SETTINGS } : NATIVE_SETTINGS)
}

/**
 * The Native bytes of `sqlFor(pinned)` over `table`, for rows with bucket in [`from`, `to`) (params, epoch
 * s). `pin`: read merged parts without FINAL (`canPinMergedParts`). The first chunk is pulled before the
 * pin check; nothing is yielded before it passed.
 */
export async function* pinnedNative(
  store: Store,
  table: string,
  sqlFor: (pinned: boolean) => string,
  params: Params,
  pin: boolean,
  signal: AbortSignal | undefined
): AsyncGenerator<Uint8Array> {
  const settings = nativeSettings(store)
  const read = pin ? await pinnedRead(store, table, Number(params['from']), Number(params['to'])) : NO_PIN
  if (read.parts.length > 0) {
    const pinnedParams = { ...params, parts: read.parts, cut: read.cutS }
    const body = await pinnedBody(
      store,
      table,
      read,
      store.stream(sqlFor(true) + settings, pinnedParams, 'Native', signal)
    )
    if (body !== null) {
      yield* body
      return
    }
  }
  yield* store.stream(sqlFor(false) + settings, params, 'Native', signal)
}
