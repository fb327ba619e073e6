/**
 * `GET /v1/derivatives/screener` in process over a live state (no store reads on the live path): the answer
 * is the screener answer of the book, served from the answer cache (engine/live/screener-answers.ts) as one
 * body per answer, shared by the spellings of one question, labelled once per answer on a synthetic service,
 * and a change of the book after a quiet spell shows at the next request. The rule itself, on a moved
 * clock: test/unit/screener-answers.test.ts; as_of against the live answers: test/integration/as-of-api.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { LiveState } from '../../../engine/live/live-state.js'
import { screenerAnswer, type ScreenerSelection } from '../../../engine/live/screener-select.js'
import type { NormalizedRecord, TradeRecord } from '../../../engine/records/types.js'
import type { HttpResponse } from '../../../server/http/types.js'
import { derivativesRoutes } from '../../../server/routes/derivatives.js'
import { FakeStore } from '../../helpers/fake-store.js'
import { jsonOf, routeApp } from '../../helpers/route-app.js'

const HOUR = 3_600_000

function trade(exchange: string, symbol: string, base: string, ts: number, qty: number): TradeRecord {
  return {
    kind: 'trade',
    ts,
    exchange,
    market: 'perp',
    symbol,
    base,
    quote: 'USDT',
    side: 'buy',
    price: 100,
    qty,
    trade_id: `${exchange}-${symbol}-${ts}-${qty}`
  }
}

function setup(synthetic = false) {
  const store = new FakeStore()
  const live = new LiveState(store)
  const now = Date.now()
  const records: NormalizedRecord[] = [
    trade('binance', 'BTCUSDT', 'BTC', now - 30 * HOUR, 3),
    trade('binance', 'BTCUSDT', 'BTC', now - 60_000, 5),
    trade('okx', 'BTC-USDT-SWAP', 'BTC', now - 60_000, 2),
    trade('bybit', 'ETHUSDT', 'ETH', now - 60_000, 9),
    {
      kind: 'funding',
      ts: now - 60_000,
      exchange: 'binance',
      symbol: 'BTCUSDT',
      base: 'BTC',
      funding_rate: 0.0001,
      interval_hours: 8
    },
    {
      kind: 'funding',
      ts: now - 60_000,
      exchange: 'okx',
      symbol: 'BTC-USDT-SWAP',
      base: 'BTC',
      funding_rate: -0.0002,
      interval_hours: 4
    }
  ]
  live.apply(records)
  return { api: routeApp(derivativesRoutes({ live, store }), { synthetic }), live, store }
}

const bodyOf = (res: HttpResponse): Buffer => {
  expect(res.status).toBe(200)
  expect(Buffer.isBuffer(res.body)).toBe(true)
  return res.body as Buffer
}

describe('GET /v1/derivatives/screener: live answers', () => {
  it('answers the book’s screener answer, one body for repeated requests, no store read', async () => {
    const { api, live, store } = setup()
    const key = await api.key('trader')
    const sel: ScreenerSelection = {
      base: 'BTC',
      exchange: null,
      require: 'funding_rate',
      sort: 'funding_rate',
      desc: false,
      limit: 1000
    }
    for (;;) {
      const before = Date.now()
      const first = bodyOf(
        await api.request('/v1/derivatives/screener?symbol=BTC&metric=funding_rate&order=asc', { key })
      )
      const after = Date.now()
      // the rows' windows are those of the UTC hour: compared when the request did not straddle an edge
      if (Math.floor(before / HOUR) !== Math.floor(after / HOUR)) continue
      expect(first.toString()).toBe(JSON.stringify(screenerAnswer(live.screener, before, sel)))
      expect(
        jsonOf({ status: 200, headers: {}, body: first }).rows.map((r: { funding_rate: number }) => r.funding_rate)
      ).toEqual([-0.0002, 0.0001])
      const again = bodyOf(
        await api.request('/v1/derivatives/screener?symbol=BTC&metric=funding_rate&order=asc', { key })
      )
      if (Math.floor(Date.now() / HOUR) !== Math.floor(before / HOUR)) continue
      expect(again).toBe(first) // the cached answer's bytes, not a copy
      break
    }
    expect(store.calls).toEqual([])
  })

  it('shares one answer between the spellings of one question', async () => {
    const { api } = setup()
    const key = await api.key('trader')
    const a = bodyOf(await api.request('/v1/derivatives/screener?symbol=BTC&metric=funding_rate', { key }))
    const b = bodyOf(
      await api.request('/v1/derivatives/screener?symbol=BTCUSDT&metric=funding_rate&sort=funding_rate', { key })
    )
    const c = bodyOf(await api.request('/v1/derivatives/screener?metric=funding_rate&symbol=btc&order=desc', { key }))
    // one cached answer: the same bytes object
    expect(b).toBe(a)
    expect(c).toBe(a)
    // a different question is a different answer
    const all = bodyOf(await api.request('/v1/derivatives/screener', { key }))
    expect(jsonOf({ status: 200, headers: {}, body: all }).count).toBe(3)
  })

  it('labels a synthetic service’s answer once per answer', async () => {
    const { api } = setup(true)
    const key = await api.key('trader')
    const first = await api.request('/v1/derivatives/screener?exchange=binance', { key })
    expect(first.headers['x-tidewatch-synthetic']).toBe('true')
    const body = bodyOf(first)
    expect(body.subarray(0, 18).toString()).toBe('{"synthetic":true,')
    expect(jsonOf(first).rows.map((r: { symbol: string }) => r.symbol)).toEqual(['BTCUSDT'])
    const again = bodyOf(await api.request('/v1/derivatives/screener?exchange=binance', { key }))
    expect(again).toBe(body) // the labelled copy, made once for the answer
  })

  it('shows a record applied after a quiet spell at the next request', async () => {
    const { api, live } = setup()
    const key = await api.key('trader')
    const volume = async (): Promise<number> =>
      jsonOf(await api.request('/v1/derivatives/screener?exchange=bybit', { key })).rows[0].volume_24h_usd
    const before = await volume()
    live.apply([trade('bybit', 'ETHUSDT', 'ETH', Date.now(), 1)])
    expect(await volume()).toBe(before + 100)
  })
})
