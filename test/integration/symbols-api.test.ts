/**
 * One symbol resolver everywhere (engine/symbols/resolve.ts), over HTTP and the push stream against the real
 * server: every accepted form names the same base on confirm, the screener, history and on-chain metrics;
 * another quote is 400 naming the accepted forms; an unknown base suggests the nearest known one; a
 * TradingView prefix picks the venue where the endpoint has an exchange.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { ingestRecords, jsonBody, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { sharedServer } from '../helpers/shared-server.js'
import { StreamClient } from '../helpers/stream-client.js'

const srv = sharedServer()
let key = ''
const MIN = 60_000
const DAY = 86_400_000
const now = Date.now()

/** The forms of BTC the issue names; each must answer as BTC. */
const BTC_FORMS = [
  'BTC',
  'btc',
  'BTCUSDT',
  'BTCUSDC',
  'BTC/USDT',
  'BTC/USDT:USDT',
  'BTC-USDT',
  'BTC-USDT-SWAP',
  'BINANCE:BTCUSDT.P',
  'BYBIT:BTCUSDT.P',
  'OKX:BTCUSDT.P',
  'BINANCE:BTCUSDT'
]

const MARKETS = [
  { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC', price: 50_000 },
  { exchange: 'bybit', symbol: 'BTCUSDT', base: 'BTC', price: 50_010 },
  { exchange: 'okx', symbol: 'BTC-USDT-SWAP', base: 'BTC', price: 50_020 },
  { exchange: 'binance', symbol: 'ETHUSDT', base: 'ETH', price: 3_000 },
  // multiplier markets are stored under the plain coin, prices per coin (as the normalizers write them)
  { exchange: 'binance', symbol: '1000PEPEUSDT', base: 'PEPE', price: 0.00001 },
  { exchange: 'bybit', symbol: 'SHIB1000USDT', base: 'SHIB', price: 0.00002 }
]

const get = (path: string) => fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } })
const q = (s: string) => encodeURIComponent(s)

beforeAll(async () => {
  const res = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan: 'enterprise' })
  })
  expect(res.status).toBe(201)
  key = (await jsonBody(res)).key
  let id = 0
  await ingestRecords(
    srv.base,
    'trade',
    MARKETS.flatMap((m) =>
      [2 * DAY, 5 * MIN].map((ago) => ({
        ...m,
        ts: now - ago,
        market: 'perp',
        quote: 'USDT',
        side: 'buy',
        qty: 1,
        trade_id: `symbols-${++id}`
      }))
    )
  )
  await ingestRecords(
    srv.base,
    'funding',
    MARKETS.map(({ price: _p, ...m }) => ({ ...m, ts: now - MIN, funding_rate: 0.0001, interval_hours: 8 }))
  )
  await ingestRecords(srv.base, 'onchain_metric', [{ ts: now - MIN, asset: 'BTC', metric: 'mvrv', value: 2.1 }])
  // the shared server's market directory may have been read before these markets were written
  await srv.invalidateMarkets()
}, 120_000)

describe('GET /v1/confirm', () => {
  it.each(BTC_FORMS)('answers %s as BTC', async (form) => {
    const res = await get(`/v1/confirm?symbol=${q(form)}&direction=long`)
    const body = await jsonBody(res)
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.symbol).toBe('BTC')
  })

  it('reads multiplier names as the plain coin', async () => {
    for (const [form, base] of [
      ['1000PEPEUSDT', 'PEPE'],
      ['BINANCE:1000PEPEUSDT.P', 'PEPE'],
      ['SHIB1000USDT', 'SHIB']
    ]) {
      const body = await jsonBody(await get(`/v1/confirm?symbol=${q(form!)}&direction=short`))
      expect(body.symbol, form).toBe(base)
    }
  })

  it('refuses ETH/BTC and ETHBTC with 400 invalid_parameter naming the accepted forms', async () => {
    for (const form of ['ETH/BTC', 'ETHBTC']) {
      const res = await get(`/v1/confirm?symbol=${q(form)}&direction=long`)
      expect(res.status, form).toBe(400)
      const { error } = await jsonBody(res)
      expect(error).toMatchObject({ code: 'invalid_parameter', param: 'symbol' })
      expect(error.message).toContain(`${form} is quoted in BTC; only US-dollar quotes are served`)
      for (const f of ['ETHUSDT', 'ETH/USDT', 'ETH/USDT:USDT', 'ETH-USDT-SWAP', 'BINANCE:ETHUSDT.P']) {
        expect(error.message).toContain(f)
      }
    }
  })

  it('suggests BTC for BTCX (400 unknown_symbol)', async () => {
    for (const form of ['BTCX', 'BTCXUSDT']) {
      const res = await get(`/v1/confirm?symbol=${form}&direction=long`)
      expect(res.status).toBe(400)
      const { error } = await jsonBody(res)
      expect(error).toMatchObject({ code: 'unknown_symbol', param: 'symbol' })
      expect(error.message).toBe('no perpetual market for BTCX on Binance, Bybit, OKX or Bitget; did you mean BTC?')
    }
  })
})

describe('GET /v1/derivatives/screener', () => {
  const screener = async (query: string) => {
    const res = await get(`/v1/derivatives/screener?${query}`)
    return { status: res.status, body: await jsonBody(res) }
  }
  const venues = (rows: { exchange: string; base: string }[]) => rows.map((r) => `${r.base}@${r.exchange}`).sort()

  it.each(['BTC', 'BTCUSDT', 'BTC/USDT:USDT', 'BTC-USDT-SWAP', 'btcusdc'])(
    'lists every venue of BTC for %s',
    async (form) => {
      const { status, body } = await screener(`symbol=${q(form)}`)
      expect(status, JSON.stringify(body)).toBe(200)
      expect(venues(body.rows)).toEqual(['BTC@binance', 'BTC@bybit', 'BTC@okx'])
    }
  )

  it('takes a TradingView prefix as the exchange', async () => {
    expect(venues((await screener(`symbol=${q('BINANCE:BTCUSDT.P')}`)).body.rows)).toEqual(['BTC@binance'])
    expect(venues((await screener(`symbol=${q('OKX:BTCUSDT.P')}&exchange=okx`)).body.rows)).toEqual(['BTC@okx'])
    const conflict = await screener(`symbol=${q('BINANCE:BTCUSDT.P')}&exchange=okx`)
    expect(conflict.status).toBe(400)
    expect(conflict.body.error).toMatchObject({ code: 'invalid_parameter', param: 'symbol' })
    expect(conflict.body.error.message).toBe('symbol names binance but exchange is okx: drop one or make them agree')
    const coinbase = await screener(`symbol=${q('COINBASE:BTCUSD')}`)
    expect(coinbase.status).toBe(400)
    expect(coinbase.body.error.message).toContain('coinbase, a venue not served')
  })

  it('filters multiplier markets by their coin', async () => {
    expect((await screener('symbol=1000PEPEUSDT')).body.rows.map((r: { symbol: string }) => r.symbol)).toEqual([
      '1000PEPEUSDT'
    ])
  })

  it('refuses ETH/BTC naming the accepted forms, and suggests BTC for BTCX', async () => {
    const cross = await screener(`symbol=${q('ETH/BTC')}`)
    expect(cross.status).toBe(400)
    expect(cross.body.error.code).toBe('invalid_parameter')
    expect(cross.body.error.message).toContain('ETH/BTC is quoted in BTC; only US-dollar quotes are served')
    expect(cross.body.error.message).toContain('BINANCE:ETHUSDT.P')
    const typo = await screener('symbol=BTCX')
    expect(typo.status).toBe(400)
    expect(typo.body.error).toMatchObject({ code: 'unknown_symbol', param: 'symbol' })
    expect(typo.body.error.message).toMatch(/did you mean BTC\?$/)
  })
})

describe('history: the market directory reads symbols the same way', () => {
  const ohlcv = async (symbol: string, extra = '') => {
    const res = await get(`/v1/historical/ohlcv?symbol=${q(symbol)}&timeframe=1d&lookback=7d${extra}`)
    return { status: res.status, body: await jsonBody(res) }
  }

  it('picks the default venue for a base, the named market for a native name, the prefix venue for TradingView', async () => {
    for (const [form, exchange, symbol] of [
      ['BTC', 'binance', 'BTCUSDT'],
      ['BTC/USDT:USDT', 'binance', 'BTCUSDT'],
      ['BTC-USDT-SWAP', 'okx', 'BTC-USDT-SWAP'],
      ['BINANCE:BTCUSDT.P', 'binance', 'BTCUSDT'],
      ['BYBIT:BTCUSDT.P', 'bybit', 'BTCUSDT'],
      ['OKX:BTCUSDT.P', 'okx', 'BTC-USDT-SWAP'],
      ['1000PEPEUSDT', 'binance', '1000PEPEUSDT'],
      ['BYBIT:SHIB1000USDT.P', 'bybit', 'SHIB1000USDT']
    ]) {
      const { status, body } = await ohlcv(form!)
      expect(status, `${form}: ${JSON.stringify(body)}`).toBe(200)
      expect(body.meta, form).toMatchObject({ exchange, symbol })
    }
  })

  it('refuses ETH/BTC, a prefix disagreeing with exchange, and suggests BTC for BTCX', async () => {
    const cross = await ohlcv('ETH/BTC')
    expect(cross.status).toBe(400)
    expect(cross.body.error.code).toBe('invalid_parameter')
    expect(cross.body.error.message).toContain('only US-dollar quotes are served')
    const conflict = await ohlcv('BYBIT:BTCUSDT.P', '&exchange=okx')
    expect(conflict.status).toBe(400)
    expect(conflict.body.error.code).toBe('invalid_parameter')
    const typo = await ohlcv('BTCX')
    expect(typo.status).toBe(400)
    expect(typo.body.error.code).toBe('unknown_symbol')
    expect(typo.body.error.message).toBe(
      'no history for BTCX: not a base asset or market symbol we hold; did you mean BTC?'
    )
  })
})

describe('GET /v1/onchain/metrics', () => {
  it('reads asset with the resolver, and suggests the nearest asset with metrics', async () => {
    const res = await get('/v1/onchain/metrics?asset=BTCUSDT&metrics=mvrv')
    expect(res.status).toBe(200)
    expect((await jsonBody(res)).asset).toBe('BTC')
    const typo = await jsonBody(await get('/v1/onchain/metrics?asset=BTCX'))
    expect(typo.error).toMatchObject({ code: 'unknown_symbol', param: 'asset' })
    expect(typo.error.message).toBe('no on-chain metrics for BTCX; did you mean BTC?')
  })
})

describe('push stream channel names', () => {
  it('subscribe under the base, with a TradingView prefix as the venue', async () => {
    const c = await StreamClient.connect(`ws://127.0.0.1:${srv.port}/v1/stream?key=${key}`)
    try {
      await c.next((f) => f.type === 'welcome')
      c.send({
        op: 'subscribe',
        id: 1,
        channels: [
          'trades:BTCUSDT',
          'trades:BINANCE:BTCUSDT.P',
          'confirm:BTC/USDT',
          'candles:OKX:BTCUSDT.P:1m',
          'trades:ETH/BTC'
        ]
      })
      const ack = await c.next((f) => f.type === 'ack' && f.id === 1)
      expect(ack.channels).toEqual(['trades:BTC', 'trades:BTC@binance', 'confirm:BTC', 'candles:BTC@okx:1m'])
      expect(ack.errors).toHaveLength(1)
      expect(ack.errors[0]).toMatchObject({ channel: 'trades:ETH/BTC', code: 'invalid_channel' })
      expect(ack.errors[0].message).toContain('only US-dollar quotes are served')
    } finally {
      c.ws.close()
    }
  })
})
