/**
 * @module
 * `GET /v1/options/history`: a metric of the options chain over time, from the per-snapshot options
 * metrics (`options_metrics`, up to 48 h) or their hourly roll-up (`options_metrics_1h`, beyond).
 * max_pain is the max-pain strike of the nearest unexpired expiry at each snapshot.
 */
import type { Store } from '../../engine/store/store.js'
import { HistoryQuery, HistoryResponse } from '../../schemas/api/options.js'
import { json, type Route } from '../http/types.js'

/** Longest window answered from per-snapshot rows; longer windows use the hourly view. */
const SNAPSHOT_HOURS = 48

const SNAPSHOT_EXPR: Readonly<Record<string, string>> = {
  pcr_oi: 'pcr_oi',
  total_oi: 'total_call_oi + total_put_oi',
  max_pain: 'max_pain_nearest'
}
const HOURLY_EXPR: Readonly<Record<string, string>> = {
  pcr_oi: 'argMaxMerge(pcr_oi)',
  total_oi: 'argMaxMerge(total_call_oi) + argMaxMerge(total_put_oi)',
  max_pain: 'argMaxMerge(max_pain_nearest)'
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
        const points =
          hours <= SNAPSHOT_HOURS
            ? await store.query<{ ts: number; value: number | null }>(
                `SELECT toUnixTimestamp(ts) AS ts, ${SNAPSHOT_EXPR[metric]} AS value FROM options_metrics
                 WHERE currency = {currency:String} AND ts >= now64(3) - INTERVAL {hours:UInt32} HOUR ORDER BY ts`,
                params
              )
            : await store.query<{ ts: number; value: number | null }>(
                `SELECT toUnixTimestamp(bucket) AS ts, ${HOURLY_EXPR[metric]} AS value FROM options_metrics_1h
                 WHERE currency = {currency:String} AND bucket >= now() - INTERVAL {hours:UInt32} HOUR
                 GROUP BY bucket ORDER BY bucket`,
                params
              )
        return json(200, { currency, metric, resolution: hours <= SNAPSHOT_HOURS ? 'snapshot' : '1h', points })
      }
    }
  ]
}
