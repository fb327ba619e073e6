/**
 * `GET /v1/signals` in process over a fake store: access (trader and up), the parameters bound to the listing
 * query (the symbol through the one resolver, since as epoch ms, the caller's key), and the error envelope of
 * each refusal. Real rows over chDB (the page, its order and cursor walk, filters): test/integration/signal-store.test.ts
 * and test/integration/signals-api.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { ScreenerBook } from '../../../engine/live/screener-book.js'
import type { ServerContext } from '../../../server/context.js'
import { parseSince, signalRoutes } from '../../../server/routes/signals.js'
import { FakeStore } from '../../helpers/fake-store.js'
import { jsonOf, routeApp } from '../../helpers/route-app.js'

const T0 = Date.UTC(2026, 0, 10, 12)
const BASES = new Set(['BTC', 'ETH'])
const screener = {
  hasBase: (b: string) => BASES.has(b),
  rows: () => [...BASES].map((base) => ({ base }))
} as unknown as ScreenerBook

async function setup() {
  const store = new FakeStore(() => [])
  const ctx = { live: { screener }, store } as unknown as Pick<ServerContext, 'live' | 'store'>
  const api = routeApp(signalRoutes(ctx))
  return { store, api, pro: await api.key('pro') }
}

describe('GET /v1/signals', () => {
  it('binds every filter: the resolved base, event, direction, since in ms, the caller key, limit + 1', async () => {
    const { store, api, pro } = await setup()
    const res = await api.request(
      '/v1/signals?symbol=BINANCE:BTCUSDT.P&event=HIGH&direction=short&since=2026-01-10T12:00:00Z&limit=7',
      { key: pro }
    )
    expect(res.status).toBe(200)
    expect(jsonOf(res)).toEqual({ data: [], next_cursor: null })
    const q = store.queries[0]!
    expect(q.params).toMatchObject({ symbol: 'BTC', event: 'HIGH', direction: 'short', since: T0, limit: 8 })
    expect(typeof q.params!['key_id']).toBe('string')
    expect(q.params!['key_id']).not.toBe('')
    expect(q.sql).not.toContain('BTC')
  })

  it('refuses with the error envelope: no key, the free plan, bad parameters', async () => {
    const { api, pro } = await setup()
    const free = await api.key('free')
    expect((await api.request('/v1/signals', { key: await api.key('trader') })).status).toBe(200)
    const err = async (target: string, key?: string) => {
      const res = await api.request(target, key === undefined ? {} : { key })
      return { status: res.status, error: jsonOf(res).error }
    }
    expect((await err('/v1/signals')).status).toBe(401)
    expect(await err('/v1/signals', free)).toMatchObject({
      status: 403,
      error: { code: 'forbidden', message: '/v1/signals needs the trader plan or higher; this key is on the free plan' }
    })
    expect(await err('/v1/signals?symbol=BTCX', pro)).toMatchObject({
      status: 400,
      error: { code: 'unknown_symbol', param: 'symbol' }
    })
    expect(await err('/v1/signals?symbol=ETH/BTC', pro)).toMatchObject({
      status: 400,
      error: { code: 'invalid_parameter', param: 'symbol' }
    })
    for (const since of ['2026-02-30', 'yesterday', '99999999999999999', '2026-01-10T25:00:00Z']) {
      expect(await err(`/v1/signals?since=${since}`, pro), since).toMatchObject({
        status: 400,
        error: { code: 'invalid_parameter', param: 'since' }
      })
    }
    expect(await err(`/v1/signals?cursor=${Buffer.from('x').toString('base64url')}`, pro)).toMatchObject({
      status: 400,
      error: {
        code: 'invalid_parameter',
        param: 'cursor',
        message: 'cursor is not a next_cursor this service answered'
      }
    })
    for (const limit of ['0', '201', 'ten']) {
      expect(await err(`/v1/signals?limit=${limit}`, pro), limit).toMatchObject({
        status: 400,
        error: { code: 'invalid_parameter', param: 'limit' }
      })
    }
    expect(await err('/v1/signals?event=LOW', pro)).toMatchObject({ status: 400, error: { param: 'event' } })
  })

  it('store down: 503 unavailable, not a 500', async () => {
    const { StoreError } = await import('../../../engine/store/store-error.js')
    const store = new FakeStore(() => {
      throw new StoreError('Code: 210. connection refused', 210, 'transient')
    })
    const ctx = { live: { screener }, store } as unknown as Pick<ServerContext, 'live' | 'store'>
    const api = routeApp(signalRoutes(ctx))
    const res = await api.request('/v1/signals', { key: await api.key('enterprise') })
    expect(res.status).toBe(503)
    expect(jsonOf(res).error.code).toBe('unavailable')
  })
})

describe('parseSince', () => {
  it('reads epoch ms, ISO dates (midnight UTC) and date-times (UTC without an offset)', () => {
    expect(parseSince(String(T0))).toBe(T0)
    expect(parseSince('2026-01-10')).toBe(Date.UTC(2026, 0, 10))
    expect(parseSince('2026-01-10T12:00')).toBe(T0)
    expect(parseSince('2026-01-10T12:00:00.250')).toBe(T0 + 250)
    expect(parseSince('2026-01-10T14:00:00+02:00')).toBe(T0)
    expect(parseSince('0')).toBe(0)
    expect(() => parseSince('1969-12-31')).toThrow(/since must be/)
    expect(() => parseSince('2026-02-29')).toThrow(/since must be/)
    expect(parseSince('2028-02-29')).toBe(Date.UTC(2028, 1, 29))
  })
})
