/**
 * `GET /v1/onchain/metrics` in process over a fake store: the asset resolved through the store, the bound
 * parameters of the series and latest queries, the wrapped shape, and the errors (unknown asset, plan
 * feature, bad parameters, the store down).
 */
import { describe, expect, it } from 'vitest'
import type { Params } from '../../../engine/store/store.js'
import { StoreError } from '../../../engine/store/store-error.js'
import { onchainRoutes } from '../../../server/routes/onchain.js'
import { FakeStore, flatSql } from '../../helpers/fake-store.js'
import { jsonOf, routeApp } from '../../helpers/route-app.js'

/** A store holding metrics of BTC and ETH only: `series` and `latest` rows for BTC. */
function metricsStore(): FakeStore {
  return new FakeStore((sql: string, params: Params | undefined) => {
    if (sql.includes('count() AS n')) return [{ n: ['BTC', 'ETH'].includes(String(params?.['asset'])) ? 3 : 0 }]
    if (sql.includes('DISTINCT asset')) return [{ asset: 'BTC' }, { asset: 'ETH' }]
    if (sql.includes('argMax(value, ts)')) return [{ metric: 'mvrv', last_ts: 1_700_000_900, value: 2.5 }]
    return [
      { metric: 'mvrv', ts: 1_700_000_000, value: 2.4 },
      { metric: 'mvrv', ts: 1_700_000_900, value: 2.5 }
    ]
  })
}

describe('GET /v1/onchain/metrics (fake store)', () => {
  it('binds the resolved asset, metrics and hours, and wraps each requested metric', async () => {
    const store = metricsStore()
    const api = routeApp(onchainRoutes(store))
    const key = await api.key('trader')
    const res = await api.request('/v1/onchain/metrics?asset=btc&metrics=mvrv,active_addresses&hours=6', { key })
    expect(res.status).toBe(200)
    expect(jsonOf(res)).toEqual({
      asset: 'BTC',
      hours: 6,
      metrics: {
        mvrv: {
          latest: { ts: 1_700_000_900, value: 2.5 },
          points: [
            { ts: 1_700_000_000, value: 2.4 },
            { ts: 1_700_000_900, value: 2.5 }
          ],
          source: 'stored' // never measured from chain data (engine/onchain/metric-sources.ts)
        },
        // requested, none stored: present and empty
        active_addresses: { latest: null, points: [], source: 'stored' }
      }
    })
    const [held, series, latest, ...more] = store.queries
    expect(more).toEqual([])
    expect(held!.params).toEqual({ asset: 'BTC' })
    expect(series!.params).toEqual({ asset: 'BTC', metrics: ['mvrv', 'active_addresses'], hours: 6 })
    expect(flatSql(series!.sql)).toContain('INTERVAL {hours:UInt32} HOUR')
    expect(latest!.params).toEqual({ asset: 'BTC', metrics: ['mvrv', 'active_addresses'] })
    // user text is bound, never in the SQL text
    for (const q of store.queries) expect(q.sql).not.toMatch(/'BTC'|mvrv|active_addresses/)
  })

  it('defaults to every metric over 24 hours', async () => {
    const store = metricsStore()
    const api = routeApp(onchainRoutes(store))
    const res = await api.request('/v1/onchain/metrics?asset=ETH', { key: await api.key('pro') })
    expect(res.status).toBe(200)
    const body = jsonOf(res)
    expect(body.hours).toBe(24)
    expect(Object.keys(body.metrics)).toEqual([
      'exchange_netflow_usd',
      'exchange_reserve_usd',
      'mvrv',
      'active_addresses'
    ])
    expect(store.queries[1]!.params).toMatchObject({ asset: 'ETH', hours: 24 })
  })

  it('an asset without metrics: 400 unknown_symbol naming asset, suggestions from the assets held', async () => {
    const store = metricsStore()
    const api = routeApp(onchainRoutes(store))
    const res = await api.request('/v1/onchain/metrics?asset=BTX', { key: await api.key('trader') })
    expect(res.status).toBe(400)
    const err = jsonOf(res).error
    expect(err).toMatchObject({ code: 'unknown_symbol', param: 'asset' })
    expect(err.message).toContain('no on-chain metrics for BTX')
    // the count missed, then the list of assets; no series query
    expect(store.queries.map((q) => flatSql(q.sql))).toEqual([
      'SELECT count() AS n FROM onchain_metrics WHERE asset = {asset:String}',
      'SELECT DISTINCT asset FROM onchain_metrics'
    ])
  })

  it('refuses before any query: a plan without onchain (403), a bad hours (400), no key (401)', async () => {
    const store = metricsStore()
    const api = routeApp(onchainRoutes(store))
    const free = await api.request('/v1/onchain/metrics?asset=BTC', { key: await api.key('free') })
    expect(free.status).toBe(403)
    const hours = await api.request('/v1/onchain/metrics?asset=BTC&hours=0', { key: await api.key('trader') })
    expect(hours.status).toBe(400)
    expect(jsonOf(hours).error.param).toBe('hours')
    expect((await api.request('/v1/onchain/metrics?asset=BTC')).status).toBe(401)
    expect(store.calls).toEqual([])
  })

  it('the store down: 503 unavailable with Retry-After, no SQL in the answer', async () => {
    const store = new FakeStore(() => {
      throw new StoreError('Code: 210. connection refused', 210, 'transient')
    })
    const api = routeApp(onchainRoutes(store))
    const res = await api.request('/v1/onchain/metrics?asset=BTC', { key: await api.key('trader') })
    expect(res.status).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(jsonOf(res).error.code).toBe('unavailable')
    expect(String(res.body)).not.toContain('onchain_metrics')
  })
})
