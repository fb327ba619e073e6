/**
 * @module
 * `GET /v1/options/history`: a metric of the options chain over time (engine/options/history-query.ts:
 * per-snapshot rows up to 48 h, hourly beyond; total_oi rounded like the live chain's sums).
 */
import { optionsMetricHistory, type OptionsHistoryMetric } from '../../engine/options/history-query.js'
import type { Store } from '../../engine/store/store.js'
import { HistoryQuery, HistoryResponse } from '../../schemas/api/options.js'
import { json, type Route } from '../http/types.js'

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
        const metric = req.q['metric'] as OptionsHistoryMetric
        const hours = req.q['hours'] as number
        const { resolution, points } = await optionsMetricHistory(store, currency, metric, hours)
        return json(200, { currency, metric, resolution, points })
      }
    }
  ]
}
