/**
 * @module
 * `GET /v1/onchain/metrics`: latest value and series per on-chain metric of an asset, from the store.
 */
import { ApiError } from '../../engine/errors.js'
import type { Store } from '../../engine/store/store.js'
import { OnchainQuery, OnchainResponse } from '../../schemas/api/onchain.js'
import { json, type Route } from '../http/types.js'

export function onchainRoutes(store: Store): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/onchain/metrics',
      access: 'key',
      feature: 'onchain',
      symbolParam: 'asset',
      summary:
        'On-chain metrics of an asset: latest value and series (exchange netflow and reserve, MVRV, active addresses)',
      tags: ['onchain'],
      query: OnchainQuery,
      response: OnchainResponse,
      handler: async (req) => {
        const asset = (req.q['asset'] as string).toUpperCase()
        const metrics = req.q['metrics'] as string[]
        const hours = req.q['hours'] as number
        const [known] = await store.query<{ n: number }>(
          'SELECT count() AS n FROM onchain_metrics WHERE asset = {asset:String}',
          { asset }
        )
        if (!known || known.n === 0) {
          throw new ApiError('unknown_symbol', `no on-chain metrics for ${asset}`, { param: 'asset' })
        }
        const rows = await store.query<{ metric: string; ts: number; value: number }>(
          `SELECT metric, toUnixTimestamp(ts) AS ts, value FROM onchain_metrics
           WHERE asset = {asset:String} AND metric IN {metrics:Array(String)} AND ts >= now64(3) - INTERVAL {hours:UInt32} HOUR
           ORDER BY metric, ts`,
          { asset, metrics, hours }
        )
        // aliased last_ts: an alias named ts would shadow the column inside argMax
        const latest = await store.query<{ metric: string; last_ts: number; value: number }>(
          `SELECT metric, toUnixTimestamp(max(ts)) AS last_ts, argMax(value, ts) AS value FROM onchain_metrics
           WHERE asset = {asset:String} AND metric IN {metrics:Array(String)} GROUP BY metric`,
          { asset, metrics }
        )
        const out: Record<
          string,
          { latest: { ts: number; value: number } | null; points: { ts: number; value: number }[] }
        > = {}
        for (const m of metrics) out[m] = { latest: null, points: [] }
        for (const r of rows) out[r.metric]!.points.push({ ts: r.ts, value: r.value })
        for (const l of latest) out[l.metric]!.latest = { ts: l.last_ts, value: l.value }
        return json(200, { asset, hours, metrics: out })
      }
    }
  ]
}
