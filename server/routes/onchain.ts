/**
 * @module
 * `GET /v1/onchain/metrics`: latest value and series per on-chain metric of an asset, from the store
 * (engine/onchain/metrics-query.ts). `asset` is read by the one symbol resolver (engine/symbols/resolve.ts:
 * BTC, BTCUSDT, BTC/USDT, ...) against the assets with metrics. With `as_of`, the readings known then and the
 * window counted back from it, plus `point_in_time`.
 */
import { onchainMetricSeries, resolveOnchainAsset } from '../../engine/onchain/metrics-query.js'
import { resolvePointInTime } from '../../engine/asof/point-in-time.js'
import type { Store } from '../../engine/store/store.js'
import { AccessControl } from '../access/access-control.js'
import { OnchainQuery, OnchainResponse } from '../../schemas/api/onchain.js'
import { json, type Route } from '../http/types.js'
import { asOfAnswers } from './as-of.js'
import { SingleFlight } from '../../engine/runtime/single-flight.js'

export function onchainRoutes(store: Store): Route[] {
  const asOf = asOfAnswers(store, 'onchain', ['onchain_metrics'])
  // identical live requests in flight share one store read (docs/read-api.md): a burst of bots asking the
  // same asset costs one query, not one per connection, and the store's bounded queue does not refuse them
  const assets = new SingleFlight<string>()
  const series = new SingleFlight<Awaited<ReturnType<typeof onchainMetricSeries>>>()
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
        const raw = req.q['asset'] as string
        const asset = await assets.run(raw, () => resolveOnchainAsset(store, raw))
        AccessControl.checkSymbol(req.plan, asset, 'asset')
        const metrics = req.q['metrics'] as string[]
        const hours = req.q['hours'] as number
        const pit = resolvePointInTime(req.q, req.plan, Date.now())
        if (pit) {
          return asOf.answer({ ...req.q, asset }, pit, async () => ({
            asset,
            hours,
            metrics: await onchainMetricSeries(store, asset, metrics, hours, pit)
          }))
        }
        const key = `${asset}\n${metrics.join(',')}\n${hours}`
        return json(200, {
          asset,
          hours,
          metrics: await series.run(key, () => onchainMetricSeries(store, asset, metrics, hours))
        })
      }
    }
  ]
}
