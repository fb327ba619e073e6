/**
 * @module
 * `GET /v1/onchain/metrics`: latest value and series per on-chain metric of an asset, from the store.
 * `asset` is read by the one symbol resolver (engine/symbols/resolve.ts: BTC, BTCUSDT, BTC/USDT, ...)
 * against the assets with metrics.
 */
import { ApiError } from '../../engine/errors.js'
import type { Store } from '../../engine/store/store.js'
import { parseSymbol, resolveSymbol } from '../../engine/symbols/resolve.js'
import { AccessControl } from '../access/access-control.js'
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
        const asset = await resolveAsset(store, req.q['asset'] as string)
        AccessControl.checkSymbol(req.plan, asset, 'asset')
        const metrics = req.q['metrics'] as string[]
        const hours = req.q['hours'] as number
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

/**
 * The asset `raw` names among those with metrics: one count for the common case, the list of assets only
 * when that misses (an unknown asset's suggestions, or a name read whole such as STETH).
 */
async function resolveAsset(store: Store, raw: string): Promise<string> {
  const parsed = parseSymbol(raw, 'asset')
  if (!(parsed instanceof ApiError)) {
    const [held] = await store.query<{ n: number }>(
      'SELECT count() AS n FROM onchain_metrics WHERE asset = {asset:String}',
      { asset: parsed.base }
    )
    if (held && held.n > 0) return parsed.base
  }
  const assets = await store.query<{ asset: string }>('SELECT DISTINCT asset FROM onchain_metrics')
  const known = new Set(assets.map((a) => a.asset))
  return resolveSymbol(raw, known, 'asset', (a) => `no on-chain metrics for ${a}`).base
}
