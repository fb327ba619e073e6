/**
 * `GET /v1/options/history` in process over a fake store: snapshot rows up to 48 h and the hourly view
 * beyond, the bound currency and hours, total_oi as calls + puts without float noise, the wrapped shape
 * and the 400s. Real rows through chDB: test/integration/options-history-total.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { optionsHistoryRoutes } from '../../../server/routes/options-history.js'
import { FakeStore, flatSql } from '../../helpers/fake-store.js'
import { jsonOf, routeApp } from '../../helpers/route-app.js'

describe('GET /v1/options/history (fake store)', () => {
  it('up to 48 h: per-snapshot rows, currency and hours bound, points as stored', async () => {
    const store = new FakeStore(() => [
      { ts: 1_700_000_000, value: 0.8 },
      { ts: 1_700_000_060, value: null }
    ])
    const res = await routeApp(optionsHistoryRoutes(store)).request(
      '/v1/options/history?currency=ETH&metric=pcr_oi&hours=48'
    )
    expect(res.status).toBe(200)
    expect(jsonOf(res)).toEqual({
      currency: 'ETH',
      metric: 'pcr_oi',
      resolution: 'snapshot',
      points: [
        { ts: 1_700_000_000, value: 0.8 },
        { ts: 1_700_000_060, value: null }
      ]
    })
    const [q, ...more] = store.queries
    expect(more).toEqual([])
    expect(q!.params).toEqual({ currency: 'ETH', hours: 48 })
    const sql = flatSql(q!.sql)
    expect(sql).toContain('SELECT toUnixTimestamp(ts) AS ts, pcr_oi AS value FROM options_metrics')
    expect(sql).toContain('currency = {currency:String}')
    expect(sql).toContain('INTERVAL {hours:UInt32} HOUR')
    expect(sql).not.toContain('ETH')
  })

  it('beyond 48 h: the hourly view, merged per bucket', async () => {
    const store = new FakeStore(() => [{ ts: 1_700_000_000, value: 65_000 }])
    const res = await routeApp(optionsHistoryRoutes(store)).request('/v1/options/history?metric=max_pain&hours=49')
    expect(jsonOf(res)).toEqual({
      currency: 'BTC', // the default
      metric: 'max_pain',
      resolution: '1h',
      points: [{ ts: 1_700_000_000, value: 65_000 }]
    })
    expect(store.queries[0]!.params).toEqual({ currency: 'BTC', hours: 49 })
    const sql = flatSql(store.queries[0]!.sql)
    expect(sql).toContain('argMaxMerge(max_pain_nearest) AS value FROM options_metrics_1h')
    expect(sql).toContain('GROUP BY bucket ORDER BY bucket')
  })

  it('total_oi: calls + puts read apart and added without float noise, in both resolutions', async () => {
    const rows = [
      { ts: 1, value: 1718.1, puts: 0.6 }, // 1718.6999999999998 added in floating point
      { ts: 2, value: 0.1, puts: 0.2 },
      { ts: 3, value: null, puts: 0.2 }
    ]
    for (const [hours, columns] of [
      [24, 'total_call_oi AS value, total_put_oi AS puts'],
      [72, 'argMaxMerge(total_call_oi) AS value, argMaxMerge(total_put_oi) AS puts']
    ] as const) {
      const store = new FakeStore(() => rows)
      const res = await routeApp(optionsHistoryRoutes(store)).request(
        `/v1/options/history?metric=total_oi&hours=${hours}`
      )
      expect(jsonOf(res).points, String(hours)).toEqual([
        { ts: 1, value: 1718.7 },
        { ts: 2, value: 0.3 },
        { ts: 3, value: null }
      ])
      expect(flatSql(store.queries[0]!.sql)).toContain(columns)
    }
  })

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
