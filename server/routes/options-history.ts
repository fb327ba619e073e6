/**
 * @module
 * `GET /v1/options/history`: a metric of the options chain over time, from the per-snapshot options
 * metrics (`options_metrics`, up to 48 h) or their hourly roll-up (`options_metrics_1h`, beyond).
 * max_pain is the max-pain strike of the nearest unexpired expiry at each snapshot. total_oi is calls + puts,
 * added here and rounded like the live chain's sums (engine/options/decimal-sums.ts): added in SQL, 1718.5 +
 * 0.2 would show as 1718.6999999999998.
 */
import { roundTo, widenDecimals } from '../../engine/options/decimal-sums.js'
import type { Store } from '../../engine/store/store.js'
import { HistoryQuery, HistoryResponse } from '../../schemas/api/options.js'
import { json, type Route } from '../http/types.js'

/** Longest window answered from per-snapshot rows; longer windows use the hourly view. */
const SNAPSHOT_HOURS = 48

/** the columns of each metric: `value`, plus `puts` for total_oi (whose `value` is then the calls) */
const SNAPSHOT_EXPR: Readonly<Record<string, string>> = {
  pcr_oi: 'pcr_oi AS value',
  total_oi: 'total_call_oi AS value, total_put_oi AS puts',
  max_pain: 'max_pain_nearest AS value'
}
const HOURLY_EXPR: Readonly<Record<string, string>> = {
  pcr_oi: 'argMaxMerge(pcr_oi) AS value',
  total_oi: 'argMaxMerge(total_call_oi) AS value, argMaxMerge(total_put_oi) AS puts',
  max_pain: 'argMaxMerge(max_pain_nearest) AS value'
}

interface MetricRow {
  readonly ts: number
  readonly value: number | null
  readonly puts?: number
}

/** calls + puts to the decimals of the more precise of the two (at most 8), without float noise */
function totalOi(calls: number, puts: number): number {
  return roundTo(calls + puts, widenDecimals(widenDecimals(0, calls), puts))
}

function point(r: MetricRow): { ts: number; value: number | null } {
  return { ts: r.ts, value: r.puts === undefined || r.value === null ? r.value : totalOi(r.value, r.puts) }
}

export function optionsHistoryRoutes(store: Store): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/options/history',
      access: 'public',
      feature: 'options',
      symbolParam: 'currency',
      summary: 'A chain metric over time: pcr_oi, total_oi or max_pain (nearest expiry)',
      tags: ['options'],
      query: HistoryQuery,
      response: HistoryResponse,
      handler: async (req) => {
        const currency = req.q['currency'] as string
        const metric = req.q['metric'] as string
        const hours = req.q['hours'] as number
        const params = { currency, hours }
        // the expression comes from a fixed table keyed by a validated enum: no user text reaches the SQL
        const rows =
          hours <= SNAPSHOT_HOURS
            ? await store.query<MetricRow>(
                `SELECT toUnixTimestamp(ts) AS ts, ${SNAPSHOT_EXPR[metric]} FROM options_metrics
                 WHERE currency = {currency:String} AND ts >= now64(3) - INTERVAL {hours:UInt32} HOUR ORDER BY ts`,
                params
              )
            : await store.query<MetricRow>(
                `SELECT toUnixTimestamp(bucket) AS ts, ${HOURLY_EXPR[metric]} FROM options_metrics_1h
                 WHERE currency = {currency:String} AND bucket >= now() - INTERVAL {hours:UInt32} HOUR
                 GROUP BY bucket ORDER BY bucket`,
                params
              )
        const points = rows.map(point)
        return json(200, { currency, metric, resolution: hours <= SNAPSHOT_HOURS ? 'snapshot' : '1h', points })
      }
    }
  ]
}
