/**
 * @module
 * One load of a base asset's stored rows for a run of moments on a regular grid (`confirmSeries`): every
 * row is tagged with its effective step, the first step at which it is usable (event time `ts <= T_i` and
 * receive time `ingest_ts <= K_i`, with K_i = T_i or one fixed known_by), and rows are grouped per
 * market, event hour and effective step keeping the newest reading of the group (argMax by event time).
 * A group is exact under any combination (the newest of newest readings), so the value of an hour at step
 * i is the newest reading among its groups of step <= i: what the raw rows known then give, and what a
 * complete hour's aggregate gives once every row of it is known.
 */
import type { Params, Store } from '../store/store.js'
import { settingsClause } from '../store/sql-text.js'
import { nativeBlocks, type NativeColumn } from '../export/native-blocks.js'
import type { OnchainMetricRecord, WhaleTransferRecord } from '../records/types.js'
import { tokensOf } from '../history/whale-assets.js'

export const HOUR_MS = 3_600_000

/** A regular grid of moments and the knowledge of each. */
export interface SeriesGrid {
  /** first step, epoch ms */
  readonly startMs: number
  /** spacing, ms (> 0) */
  readonly stepMs: number
  /** number of steps */
  readonly n: number
  /** fixed known_by of every step; undefined: each step's own moment */
  readonly knownByMs: number | undefined
}

/** The newest reading of one market in one event hour among rows first usable at step `e`. */
export interface Group {
  readonly exchange: string
  readonly symbol: string
  /** epoch hour */
  readonly h: number
  /** effective step */
  readonly e: number
  /** event time of the reading, epoch ms */
  readonly ts: number
  readonly a: number
  /** a second value of the reading (funding: interval hours), else 0 */
  readonly b: number
}

/**
 * The newest reading of a list usable at step i (the list ordered by its first usable step `e`, each
 * reading carrying forward a newer one before it), or undefined.
 */
export function usableAt(list: readonly Group[] | undefined, i: number): Group | undefined {
  if (!list) return undefined
  let found: Group | undefined
  for (const g of list) {
    if (g.e > i) break
    found = g
  }
  return found
}

export type Tagged<T> = T & { readonly e: number }

/**
 * The whale transfer fields `WhaleWindow.flows24h` reads (engine/live/whale-window.ts): a step's window is
 * filled with these alone, swaps left out (flows24h skips them).
 */
export type WhaleFlowRow = Pick<WhaleTransferRecord, 'kind' | 'ts' | 'address' | 'event_type' | 'token' | 'usd_value'>

/** The run's grouped readings of each table. */
export interface SeriesReadings {
  readonly funding: readonly Group[]
  readonly oi: readonly Group[]
  readonly lsr: readonly Group[]
}

/**
 * SQL of a row's effective step from its `ts` and `ingest_ts` (parameters start, step, known). The step of
 * a moment is monotone in it, so the later step of the two times is the step of the later time.
 */
function effectiveSql(g: SeriesGrid): string {
  const stepOf = (x: string): string =>
    `if(${x} - {start:Int64} <= 0, 0, intDiv(${x} - {start:Int64} + {step:Int64} - 1, {step:Int64}))`
  return stepOf(
    g.knownByMs === undefined ? 'toUnixTimestamp64Milli(greatest(ts, ingest_ts))' : 'toUnixTimestamp64Milli(ts)'
  )
}

/**
 * The settings clause of the run's reads of whole ranges: no automatic PREWHERE. On those reads choosing and
 * running a PREWHERE stage costs about 2 engine CPU ms more than it saves (of 8-25 ms per read, whale
 * transfers' token filter included). Not for the trade tail (`groupedRows` with hour parts): there the
 * PREWHERE of the parts' filter is what keeps the large trades table's other columns unread (~10 against
 * ~65 ms without). Measured alternated on the 31-day demo data (docs/benchmarks.md).
 */
export const SERIES_READ_SETTINGS = settingsClause({ optimize_move_to_prewhere: 0 })

/** ` AND ingest_ts <= known` for a fixed known_by. */
function knownSql(g: SeriesGrid): string {
  return g.knownByMs === undefined ? '' : ` AND ingest_ts <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')`
}

export interface SeriesWindows {
  /** earliest event time each table is read from, epoch ms */
  readonly fundingFromMs: number
  readonly oiFromMs: number
  readonly lsrFromMs: number
  readonly onchainFromMs: number
  readonly whalesFromMs: number
}

/** The parameters of the grid's queries. */
function gridParams(base: string, g: SeriesGrid): Record<string, number | string> {
  return {
    base,
    start: g.startMs,
    step: g.stepMs,
    n: g.n,
    to: g.startMs + (g.n - 1) * g.stepMs,
    ...(g.knownByMs === undefined ? {} : { known: g.knownByMs })
  }
}

/**
 * Per event hour, the part of it to read: hours firstHour, firstHour + 1, ... each with an inclusive range
 * [lo, hi] of epoch ms (lo > hi: none of it).
 */
export interface HourParts {
  readonly firstHour: number
  readonly lo: readonly number[]
  readonly hi: readonly number[]
}

/**
 * The newest reading of each group of the rows of `table` for the base with event time in [{<fromParam>},
 * the last step], usable within the run: per market, event hour and effective step, as plain typed columns
 * (names and types `readGroups` decodes). One flat statement: a nested one (rows, then groups, then casts)
 * costs ~15% more engine time to plan and run (bench/asof/series-breakdown.ts).
 */
function groupsSql(
  g: SeriesGrid,
  table: string,
  a: string,
  b: string,
  fromParam: string,
  extra: string,
  settings: string
): string {
  // the step is filtered uncast (a far receive time may give a step beyond Int32), then cast: it is < n
  return `SELECT CAST(exchange AS String) AS gx, CAST(symbol AS String) AS gs,
            toInt32(intDiv(toUnixTimestamp(ts), 3600)) AS gh, toInt32((${effectiveSql(g)}) AS e) AS ge,
            toFloat64(toUnixTimestamp64Milli(max(ts))) AS gt, toFloat64(argMax(${a}, ts)) AS ga,
            toFloat64(argMax(${b}, ts)) AS gb
          FROM ${table}
          WHERE base = {base:String} AND ts >= fromUnixTimestamp64Milli({${fromParam}:Int64}, 'UTC')
            AND ts <= fromUnixTimestamp64Milli({to:Int64}, 'UTC')${knownSql(g)}${extra} AND e < {n:Int64}
          GROUP BY gx, gs, gh, ge${settings}`
}

/**
 * The groups of a `groupsSql` statement, read in the Native format (the store's format of large reads,
 * engine/export/native-blocks.ts): numbers arrive as typed columns, with no text to format or parse. Every
 * group is built as one object shape, so the sweeps' sorts and lookups stay monomorphic.
 */
async function readGroups(store: Store, sql: string, params: Params): Promise<Group[]> {
  const out: Group[] = []
  for await (const block of nativeBlocks(store.stream(sql, params, 'Native'))) {
    const col = (name: string): NativeColumn['values'] => {
      const c = block.columns.find((x) => x.name === name)
      if (!c) throw new Error(`series groups without column ${name}`)
      return c.values
    }
    const [x, s, h, e, t, a, b] = ['gx', 'gs', 'gh', 'ge', 'gt', 'ga', 'gb'].map(col) as [
      string[],
      string[],
      Int32Array,
      Int32Array,
      Float64Array,
      Float64Array,
      Float64Array
    ]
    for (let j = 0; j < block.rows; j++) {
      out.push({ exchange: x[j]!, symbol: s[j]!, h: h[j]!, e: e[j]!, ts: t[j]!, a: a[j]!, b: b[j]! })
    }
  }
  return out
}

/**
 * The rows of `table` for `base` with event time in [fromMs, the last step] (and, when given, in the part
 * `parts` names for the row's hour: one lookup per row), usable within the run, grouped per market, event
 * hour and effective step: the newest reading of each group (`a`, `b`: SQL of its values).
 */
export async function groupedRows(
  store: Store,
  base: string,
  g: SeriesGrid,
  table: string,
  a: string,
  b: string,
  fromMs: number,
  parts?: HourParts
): Promise<Group[]> {
  const params: Record<string, number | string | number[]> = { ...gridParams(base, g), from: fromMs }
  let extra = ''
  let settings = SERIES_READ_SETTINGS
  if (parts) {
    settings = '' // the parts' filter as PREWHERE (SERIES_READ_SETTINGS)
    if (parts.lo.length === 0) return []
    Object.assign(params, { ph: parts.firstHour, plo: [...parts.lo], phi: [...parts.hi] })
    // the hour's slot (1-based); hours outside the arrays read nothing (arrayElement gives 0 there)
    const slot = `toInt64(intDiv(toUnixTimestamp(ts), 3600)) - {ph:Int64} + 1`
    extra = ` AND toUnixTimestamp64Milli(ts) >= arrayElement({plo:Array(Int64)}, ${slot})
             AND toUnixTimestamp64Milli(ts) <= arrayElement({phi:Array(Int64)}, ${slot})`
  }
  return readGroups(store, groupsSql(g, table, a, b, 'from', extra, settings), params)
}

/**
 * The grouped funding, open interest and long/short readings of the run: one statement per table, one
 * after another (three statements cost less engine time than their UNION ALL in one, measured on the
 * demo data: bench/asof/series-breakdown.ts).
 */
export async function loadReadings(
  store: Store,
  base: string,
  g: SeriesGrid,
  w: SeriesWindows
): Promise<SeriesReadings> {
  const funding = await groupedRows(store, base, g, 'funding', 'funding_rate', 'interval_hours', w.fundingFromMs)
  const oi = await groupedRows(store, base, g, 'open_interest', 'oi_usd', '0', w.oiFromMs)
  const lsr = await groupedRows(store, base, g, 'long_short', 'long_short_ratio', '0', w.lsrFromMs)
  return { funding, oi, lsr }
}

/** The base's exchange net flow and MVRV readings of the run, by event time. */
export async function loadOnchain(
  store: Store,
  base: string,
  g: SeriesGrid,
  w: SeriesWindows
): Promise<Tagged<OnchainMetricRecord>[]> {
  // the event time is aliased ms: an alias named ts would shadow the column in WHERE
  const rows = await store.query<{ ms: number; asset: string; metric: string; value: number; e: number }>(
    `SELECT * FROM (
       SELECT toUnixTimestamp64Milli(ts) AS ms, asset, metric, value, ${effectiveSql(g)} AS e
       FROM onchain_metrics
       WHERE asset = {base:String} AND metric IN ('exchange_netflow_usd', 'mvrv')
         AND ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts <= fromUnixTimestamp64Milli({to:Int64}, 'UTC')${knownSql(g)})
     WHERE e < {n:Int64} ORDER BY ms${SERIES_READ_SETTINGS}`,
    { ...gridParams(base, g), from: w.onchainFromMs }
  )
  return rows.map((r) => ({
    kind: 'onchain_metric' as const,
    ts: Number(r.ms),
    asset: r.asset,
    metric: r.metric,
    value: r.value,
    e: Number(r.e)
  }))
}

/** The whale transfers of the base's tokens in the run (swaps left out), in the order of a full load. */
export async function loadWhales(
  store: Store,
  base: string,
  g: SeriesGrid,
  w: SeriesWindows
): Promise<Tagged<WhaleFlowRow>[]> {
  // the tie-break columns of the order are read for it, not returned
  const rows = await store.query<{
    ms: number
    address: string
    event_type: WhaleFlowRow['event_type']
    token: string
    usd_value: number
    e: number
  }>(
    `SELECT ms, address, event_type, token, usd_value, e FROM (
       SELECT toUnixTimestamp64Milli(ts) AS ms, chain, tx_hash, log_index, address, toString(event_type) AS event_type,
              token, usd_value, ${effectiveSql(g)} AS e
       FROM whale_transfers
       WHERE upper(token) IN {tokens:Array(String)} AND event_type != 'swap'
         AND ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts <= fromUnixTimestamp64Milli({to:Int64}, 'UTC')${knownSql(g)})
     WHERE e < {n:Int64} ORDER BY ms, chain, tx_hash, log_index, address${SERIES_READ_SETTINGS}`,
    { ...gridParams(base, g), from: w.whalesFromMs, tokens: tokensOf(base) }
  )
  return rows.map((r) => ({
    kind: 'whale_transfer' as const,
    ts: Number(r.ms),
    address: r.address,
    event_type: r.event_type,
    token: r.token,
    usd_value: r.usd_value,
    e: Number(r.e)
  }))
}
