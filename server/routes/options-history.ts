/**
 * @module
 * `GET /v1/options/history`: a metric of the options chain over time (engine/options/history-query.ts:
 * per-snapshot rows up to 48 h, hourly beyond; total_oi rounded like the live chain's sums). `known_by`: only
 * the snapshots received by then.
 */
import { ApiError } from '../../engine/errors.js'
import { parseMoment } from '../../engine/asof/point-in-time.js'
import { optionsMetricHistory, type OptionsHistoryMetric } from '../../engine/options/history-query.js'
import type { Store } from '../../engine/store/store.js'
import { HistoryQuery, HistoryResponse } from '../../schemas/api/options.js'
import { json, type Route } from '../http/types.js'

/** `known_by` as epoch ms: one of the moment forms, not in the future (400 otherwise). */
function knownByMoment(text: string, nowMs: number): number {
  const ms = parseMoment(text, 'known_by')
  if (ms > nowMs) {
    const iso = (t: number): string => new Date(t).toISOString()
    throw new ApiError(
      'invalid_parameter',
      `known_by ${iso(ms)} is in the future (the server's clock reads ${iso(nowMs)})`,
      {
        param: 'known_by'
      }
    )
  }
  return ms
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
        const metric = req.q['metric'] as OptionsHistoryMetric
        const hours = req.q['hours'] as number
        const knownBy = req.q['known_by'] === undefined ? null : knownByMoment(req.q['known_by'] as string, Date.now())
        const { resolution, points } = await optionsMetricHistory(store, currency, metric, hours, knownBy)
        return json(200, { currency, metric, resolution, points })
      }
    }
  ]
}
