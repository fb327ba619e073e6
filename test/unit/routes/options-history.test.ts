/**
 * `GET /v1/options/history` in process over a fake store: each bad parameter answers 400 naming it before
 * any query reaches the store. Answers over real rows through chDB (resolutions, total_oi without float
 * noise, the series' shape): test/integration/options-history-total.test.ts, test/integration/read-api.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { optionsHistoryRoutes } from '../../../server/routes/options-history.js'
import { FakeStore } from '../../helpers/fake-store.js'
import { jsonOf, routeApp } from '../../helpers/route-app.js'

describe('GET /v1/options/history (fake store)', () => {
  it('a bad metric, hours or currency answers 400 naming it, before any query', async () => {
    const store = new FakeStore()
    const api = routeApp(optionsHistoryRoutes(store))
    for (const [query, param] of [
      ['metric=gamma', 'metric'],
      ['metric=pcr_oi&hours=721', 'hours'],
      ['metric=pcr_oi&hours=0', 'hours'],
      ['metric=pcr_oi&currency=SOL', 'currency'],
      ['hours=24', 'metric']
    ]) {
      const res = await api.request(`/v1/options/history?${query}`)
      expect(res.status, query).toBe(400)
      expect(jsonOf(res).error.param, query).toBe(param)
    }
    expect(store.calls).toEqual([])
  })
})
