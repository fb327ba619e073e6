/**
 * `GET /v1/onchain/metrics` in process over a fake store: refusals that reach no query (plan feature, bad
 * parameters, no key) and the store down. Answers over real rows through chDB: test/integration/read-api.test.ts
 * (series and latest), test/integration/symbols-api.test.ts (the resolver, an unknown asset's suggestion),
 * test/integration/whales-chain-evm.test.ts (a requested metric with none stored, the defaults).
 */
import { describe, expect, it } from 'vitest'
import type { Params } from '../../../engine/store/store.js'
import { StoreError } from '../../../engine/store/store-error.js'
import { onchainRoutes } from '../../../server/routes/onchain.js'
import { FakeStore } from '../../helpers/fake-store.js'
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
