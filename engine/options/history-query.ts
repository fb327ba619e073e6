/**
 * @module
 * The store reads of `GET /v1/options/history`: a metric of the options chain over time, from the
 * per-snapshot options metrics (`options_metrics`, up to 48 h) or their hourly roll-up (`options_metrics_1h`,
 * beyond; the last snapshot of each hour). max_pain is the max-pain strike of the nearest unexpired expiry at
 * each snapshot. total_oi is calls + puts, added here and rounded like the live chain's sums
 * (decimal-sums.ts): added in SQL, 1718.5 + 0.2 would show as 1718.6999999999998.
 * Each snapshot row is the chain at its moment (engine/options/chain-at.ts), so a point equals the live chain of
 * that moment. With `known_by` K only rows received by K (`ingest_ts <= K`) count; the hourly roll-up cannot
 * tell when its rows arrived, so beyond 48 h such a request takes the last snapshot of each hour from the
 * snapshot rows instead (the same value the roll-up keeps).
 */
import type { Store } from '../store/store.js'
import { roundTo, widenDecimals } from './decimal-sums.js'

export type OptionsHistoryMetric = 'pcr_oi' | 'total_oi' | 'max_pain'

/** Longest window answered from per-snapshot rows; longer windows use the hourly view. */
export const SNAPSHOT_HOURS = 48

/** the columns of each metric: `value`, plus `puts` for total_oi (whose `value` is then the calls) */
const SNAPSHOT_EXPR: Readonly<Record<OptionsHistoryMetric, string>> = {
  pcr_oi: 'pcr_oi AS value',
  total_oi: 'total_call_oi AS value, total_put_oi AS puts',
  max_pain: 'max_pain_nearest AS value'
}
const HOURLY_EXPR: Readonly<Record<OptionsHistoryMetric, string>> = {
  pcr_oi: 'argMaxMerge(pcr_oi) AS value',
  total_oi: 'argMaxMerge(total_call_oi) AS value, argMaxMerge(total_put_oi) AS puts',
  max_pain: 'argMaxMerge(max_pain_nearest) AS value'
}

/** the same columns from snapshot rows, last snapshot of each hour (argMax by ts, as the roll-up keeps) */
const HOURLY_RAW_EXPR: Readonly<Record<OptionsHistoryMetric, string>> = {
  pcr_oi: 'argMax(pcr_oi, ts) AS value',
  total_oi: 'argMax(total_call_oi, ts) AS value, argMax(total_put_oi, ts) AS puts',
  max_pain: 'argMax(max_pain_nearest, ts) AS value'
}

interface MetricRow {
  readonly ts: number
  readonly value: number | null
  readonly puts?: number
}

export interface OptionsHistoryPoint {
  /** epoch seconds */
  readonly ts: number
  /** null when undefined (e.g. no calls for a ratio) */
  readonly value: number | null
}

export interface OptionsHistory {
  /** `snapshot` up to SNAPSHOT_HOURS, `1h` beyond */
  readonly resolution: 'snapshot' | '1h'
  /** oldest first */
  readonly points: readonly OptionsHistoryPoint[]
}

/** calls + puts to the decimals of the more precise of the two (at most 8), without float noise */
function totalOi(calls: number, puts: number): number {
  return roundTo(calls + puts, widenDecimals(widenDecimals(0, calls), puts))
}

function point(r: MetricRow): OptionsHistoryPoint {
  return { ts: r.ts, value: r.puts === undefined || r.value === null ? r.value : totalOi(r.value, r.puts) }
}

/** `metric` of `currency`'s chain over the last `hours`; `knownByMs`: only rows received by then (epoch ms). */
export async function optionsMetricHistory(
  store: Store,
  currency: string,
  metric: OptionsHistoryMetric,
  hours: number,
  knownByMs: number | null = null
): Promise<OptionsHistory> {
  const snapshots = hours <= SNAPSHOT_HOURS
  // the expression comes from a fixed table keyed by the metric: no caller text reaches the SQL
  const expr = (snapshots ? SNAPSHOT_EXPR : knownByMs === null ? HOURLY_EXPR : HOURLY_RAW_EXPR)[metric]
  if (expr === undefined) throw new TypeError(`unknown options history metric ${String(metric)}`)
  const params = { currency, hours, known: knownByMs ?? 0 }
  const known = knownByMs === null ? '' : `AND ingest_ts <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')`
  const rows = snapshots
    ? await store.query<MetricRow>(
        `SELECT toUnixTimestamp(ts) AS ts, ${expr} FROM options_metrics
         WHERE currency = {currency:String} AND ts >= now64(3) - INTERVAL {hours:UInt32} HOUR ${known} ORDER BY ts`,
        params
      )
    : knownByMs === null
      ? await store.query<MetricRow>(
          `SELECT toUnixTimestamp(bucket) AS ts, ${expr} FROM options_metrics_1h
           WHERE currency = {currency:String} AND bucket >= now() - INTERVAL {hours:UInt32} HOUR
           GROUP BY bucket ORDER BY bucket`,
          params
        )
      : // the hour is aliased hour_s: an alias named ts would shadow the column argMax orders by
        (
          await store.query<MetricRow & { hour_s: number }>(
            `SELECT toUnixTimestamp(toStartOfHour(ts)) AS hour_s, ${expr} FROM options_metrics
             WHERE currency = {currency:String} AND ts >= now() - INTERVAL {hours:UInt32} HOUR
               AND toStartOfHour(ts) >= now() - INTERVAL {hours:UInt32} HOUR ${known}
             GROUP BY hour_s ORDER BY hour_s`,
            params
          )
        ).map((r) => ({ ...r, ts: r.hour_s }))
  return { resolution: snapshots ? 'snapshot' : '1h', points: rows.map(point) }
}
