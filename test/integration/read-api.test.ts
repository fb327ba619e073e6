import { describe, it, expect, beforeAll } from 'vitest'
import { jsonBody, ingestRecords } from '../helpers/server.js'
import { createKey, sharedServer } from '../helpers/shared-server.js'

const srv = sharedServer()
let trader = ''
let free = ''
const HOUR = 3_600_000
const now = Date.now()

const post = (kind: string, rows: object[]): Promise<void> => ingestRecords(srv.base, kind, rows)
const get = (path: string, key = trader) => fetch(`${srv.base}${path}`, { headers: key ? { 'x-api-key': key } : {} })

beforeAll(async () => {
  trader = await createKey(srv.base, 'trader', 't')
  free = await createKey(srv.base, 'free', 'f')
  const m = (exchange: string, symbol: string) => ({ exchange, symbol, base: 'ZEC' })
  const trade = (exchange: string, symbol: string, ts: number, price: number, qty: number, id: string) => ({
    ...m(exchange, symbol),
    ts,
    market: 'perp',
    quote: 'USDT',
    side: 'buy',
    price,
    qty,
    trade_id: id
  })
  await post('trade', [
    trade('binance', 'ZECUSDT', now - 30 * HOUR, 100, 10, 'a'), // previous 24 h: 1,000 USD
    trade('binance', 'ZECUSDT', now - 2 * HOUR, 100, 15, 'b'), // last 24 h: 1,500 USD
    trade('okx', 'ZEC-USDT-SWAP', now - 1 * HOUR, 101, 1, 'c')
  ])
  // The screener compares OI now with the hour bucket 24 h before the hour it reads in. The same reading in
  // both hours that can be "24 h ago" (the read may land in the next hour when the run crosses one) keeps
  // the answer independent of when in the hour the test runs.
  const hourStart = Math.floor(now / HOUR) * HOUR
  await post('open_interest', [
    { ...m('binance', 'ZECUSDT'), ts: hourStart - 24 * HOUR + 1_000, oi_base: 1000, oi_usd: 100_000 },
    { ...m('binance', 'ZECUSDT'), ts: hourStart - 23 * HOUR + 1_000, oi_base: 1000, oi_usd: 100_000 },
    { ...m('binance', 'ZECUSDT'), ts: now - 60_000, oi_base: 1100, oi_usd: 120_000 }
  ])
  await post('funding', [
    { ...m('binance', 'ZECUSDT'), ts: now - 60_000, funding_rate: 0.0001, interval_hours: 8 },
    { ...m('okx', 'ZEC-USDT-SWAP'), ts: now - 60_000, funding_rate: -0.0002, interval_hours: 4 }
  ])
  await post('long_short', [{ ...m('binance', 'ZECUSDT'), ts: now - 60_000, long_short_ratio: 1.8 }])
})

describe('GET /v1/derivatives/screener', () => {
  it('computes the spec fields from posted records at once', async () => {
    const body = await jsonBody(await get('/v1/derivatives/screener?symbol=zec'))
    expect(body.count).toBe(2)
    const bn = body.rows.find((r: { exchange: string }) => r.exchange === 'binance')
    expect(bn).toMatchObject({
      symbol: 'ZECUSDT',
      base: 'ZEC',
      funding_rate: 0.0001,
      funding_interval_hours: 8,
      long_short_ratio_cumulative: 1.8,
      open_interest_usd: 120_000,
      volume_24h_usd: 1500
    })
    expect(bn.open_interest_change_24h).toBeCloseTo(20, 9)
    expect(bn.volume_change_24h).toBeCloseTo(50, 9)
    expect(bn.funding_rate_annualized).toBeCloseTo(0.0001 * 1095, 12)
    const okx = body.rows.find((r: { exchange: string }) => r.exchange === 'okx')
    expect(okx).toMatchObject({ funding_interval_hours: 4, open_interest_change_24h: null, volume_change_24h: null })
    expect(okx.funding_rate_annualized).toBeCloseTo(-0.0002 * 2190, 12)
  })

  it('filters by exchange and metric, sorts and limits', async () => {
    const okx = await jsonBody(await get('/v1/derivatives/screener?symbol=ZEC&exchange=okx'))
    expect(okx.rows.map((r: { exchange: string }) => r.exchange)).toEqual(['okx'])
    const byFunding = await jsonBody(await get('/v1/derivatives/screener?symbol=ZEC&metric=funding_rate&order=asc'))
    expect(byFunding.rows.map((r: { funding_rate: number }) => r.funding_rate)).toEqual([-0.0002, 0.0001])
    const oiOnly = await jsonBody(await get('/v1/derivatives/screener?symbol=ZEC&metric=open_interest'))
    expect(oiOnly.rows.map((r: { exchange: string }) => r.exchange)).toEqual(['binance'])
    const one = await jsonBody(await get('/v1/derivatives/screener?limit=1'))
    expect(one.rows).toHaveLength(1)
  })

  it('answers 400 for other exchanges, unknown symbols and limits, 403 for the free plan, 401 without a key', async () => {
    const kraken = await get('/v1/derivatives/screener?exchange=kraken')
    expect(kraken.status).toBe(400)
    expect((await jsonBody(kraken)).error.message).toBe('exchange must be one of binance, bybit, okx, bitget')
    const unknown = await jsonBody(await get('/v1/derivatives/screener?symbol=NOPE'))
    expect(unknown.error).toMatchObject({ code: 'unknown_symbol', param: 'symbol' })
    expect((await get('/v1/derivatives/screener?limit=1001')).status).toBe(400)
    expect((await get('/v1/derivatives/screener?limit=0')).status).toBe(400)
    const f = await get('/v1/derivatives/screener', free)
    expect(f.status).toBe(403)
    expect((await jsonBody(f)).error.message).toContain('trader plan')
    expect((await get('/v1/derivatives/screener', '')).status).toBe(401)
  })
})

describe('screener after a restart', () => {
  it('rebuilds from the store with the same rows', async () => {
    const before = await jsonBody(await get('/v1/derivatives/screener?symbol=ZEC'))
    await srv.rebuild()
    const after = await jsonBody(await get('/v1/derivatives/screener?symbol=ZEC'))
    expect(after.rows).toEqual(before.rows)
  })
})

describe('GET /v1/options/history', () => {
  it('returns the snapshot series of a metric in time order', async () => {
    const quote = (ts: number, t: string, k: number, oi: number) => ({
      ts,
      exchange: 'deribit',
      instrument: `ETH-26DEC36-${k}-${t}`,
      underlying_price: 3000,
      mark_price: 0.1,
      open_interest: oi,
      volume_24h: 1
    })
    await post('option_quote', [quote(now - 2 * HOUR, 'C', 3000, 10), quote(now - 2 * HOUR, 'P', 3000, 5)])
    await post('option_quote', [quote(now - HOUR, 'C', 3000, 10), quote(now - HOUR, 'P', 3000, 20)])
    const body = await jsonBody(await get('/v1/options/history?currency=ETH&metric=pcr_oi&hours=3', ''))
    expect(body).toEqual({
      currency: 'ETH',
      metric: 'pcr_oi',
      resolution: 'snapshot',
      points: [
        { ts: Math.floor((now - 2 * HOUR) / 1000), value: 0.5 },
        { ts: Math.floor((now - HOUR) / 1000), value: 2 }
      ]
    })
    const total = await jsonBody(await get('/v1/options/history?currency=ETH&metric=total_oi&hours=3', ''))
    expect(total.points.map((p: { value: number }) => p.value)).toEqual([15, 30])
    const long = await jsonBody(await get('/v1/options/history?currency=ETH&metric=max_pain&hours=720', ''))
    expect(long.resolution).toBe('1h')
    expect(long.points.length).toBe(2)
  })

  it('validates hours and metric', async () => {
    for (const q of ['metric=pcr_oi&hours=0', 'metric=pcr_oi&hours=721', 'metric=delta', 'hours=5']) {
      expect((await get(`/v1/options/history?${q}`, '')).status, q).toBe(400)
    }
  })
})

describe('GET /v1/onchain/metrics', () => {
  it('returns latest and series per metric', async () => {
    await post('onchain_metric', [
      { ts: now - 3 * HOUR, asset: 'ZEC', metric: 'mvrv', value: 1.5 },
      { ts: now - HOUR, asset: 'ZEC', metric: 'mvrv', value: 1.7 },
      { ts: now - HOUR, asset: 'ZEC', metric: 'exchange_netflow_usd', value: -5e6 }
    ])
    const res = await get('/v1/onchain/metrics?asset=zec&metrics=mvrv,exchange_netflow_usd&hours=2')
    const body = await jsonBody(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.asset).toBe('ZEC')
    expect(body.metrics.mvrv.latest).toEqual({ ts: Math.floor((now - HOUR) / 1000), value: 1.7 })
    expect(body.metrics.mvrv.points).toEqual([{ ts: Math.floor((now - HOUR) / 1000), value: 1.7 }])
    expect(body.metrics.exchange_netflow_usd.latest.value).toBe(-5e6)
    expect(Object.keys(body.metrics)).toEqual(['mvrv', 'exchange_netflow_usd'])
  })

  it('answers 400 for unknown assets and metrics, 403 on the free plan', async () => {
    expect((await jsonBody(await get('/v1/onchain/metrics?asset=NOPE'))).error.code).toBe('unknown_symbol')
    expect((await get('/v1/onchain/metrics?asset=ZEC&metrics=price')).status).toBe(400)
    expect((await get('/v1/onchain/metrics')).status).toBe(400)
    expect((await get('/v1/onchain/metrics?asset=BTC', free)).status).toBe(403)
  })
})
