import { describe, it, expect, beforeAll } from 'vitest'
import { jsonBody, ingestRecords } from '../helpers/server.js'
import { createKey, sharedServer } from '../helpers/shared-server.js'
import { whaleRow } from '../helpers/whale-row.js'

const srv = sharedServer()
let key = ''
const MIN = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
// yesterday 00:00 UTC: every bucket of that day is closed
const D0 = Math.floor(Date.now() / DAY) * DAY - DAY
const day = new Date(D0).toISOString().slice(0, 10)

const m = (exchange: string, symbol: string) => ({ exchange, symbol, base: 'ALN' })
const trade = (ts: number, price: number, qty: number, id: string, exchange = 'binance', symbol = 'ALNUSDT') => ({
  ...m(exchange, symbol),
  ts,
  market: 'perp',
  quote: 'USDT',
  side: 'buy',
  price,
  qty,
  trade_id: id
})
const get = (path: string) => fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } })

beforeAll(async () => {
  key = await createKey(srv.base, 'enterprise', 'e')
  await ingestRecords(srv.base, 'trade', [
    trade(D0 + 10 * MIN, 100, 1, 'a'),
    trade(D0 + 20 * MIN, 104, 2, 'b'),
    trade(D0 + 2 * HOUR + 5 * MIN, 101, 1, 'c'),
    trade(D0 + 2 * HOUR + 7 * MIN, 99, 1, 'd', 'okx', 'ALN-USDT-SWAP'),
    { ...trade(D0, 1, 1, 'e', 'bybit', 'ALBUSDT'), base: 'ALB' }
  ])
  await ingestRecords(srv.base, 'funding', [
    { ...m('binance', 'ALNUSDT'), ts: D0 + 5 * MIN, funding_rate: 0.0001, interval_hours: 8 },
    { ...m('binance', 'ALNUSDT'), ts: D0 + 50 * MIN, funding_rate: 0.0003, interval_hours: 8 },
    // a real zero, distinct from "no data"
    { ...m('binance', 'ALNUSDT'), ts: D0 + 3 * HOUR + 1, funding_rate: 0, interval_hours: 8 }
  ])
  await ingestRecords(srv.base, 'open_interest', [
    { ...m('binance', 'ALNUSDT'), ts: D0 + 15 * MIN, oi_base: 10, oi_usd: 1000 },
    { ...m('binance', 'ALNUSDT'), ts: D0 + 45 * MIN, oi_base: 12, oi_usd: 1250 }
  ])
  await ingestRecords(srv.base, 'liquidation', [
    { ...m('binance', 'ALNUSDT'), ts: D0 + 12 * MIN, side: 'sell', price: 100, qty: 3 },
    { ...m('binance', 'ALNUSDT'), ts: D0 + 13 * MIN, side: 'buy', price: 100, qty: 1 }
  ])
  await ingestRecords(srv.base, 'whale_transfer', [
    whaleRow({ ts: D0 + 30 * MIN, token: 'ALN', event_type: 'transfer_in', usd_value: 5_000_000, tx_hash: '0xa1' }),
    whaleRow({ ts: D0 + 40 * MIN, token: 'ALN', event_type: 'transfer_out', usd_value: 2_000_000, tx_hash: '0xa2' }),
    whaleRow({ ts: D0 + 40 * MIN, token: 'USDC', event_type: 'transfer_in', usd_value: 9_000_000, tx_hash: '0xa3' })
  ])
})

describe('GET /v1/backtest/data', () => {
  it('aligns every field on the 1h grid, null where nothing was recorded', async () => {
    const body = await jsonBody(
      await get(
        `/v1/backtest/data?symbols=ALN&timeframe=1h&start=${day}&end=${day}&fields=ohlcv,funding_rate,oi,whale_flow,liquidations`
      )
    )
    expect(body.data).toHaveLength(24)
    expect(body.meta).toMatchObject({
      start: D0,
      end: D0 + DAY,
      rows: 24,
      timeframe: '1h',
      symbol: 'ALNUSDT',
      exchange: 'binance'
    })
    const [h0, h1, h2, h3] = body.data
    expect(h0).toMatchObject({
      timestamp: D0,
      symbol: 'ALNUSDT',
      open: 100,
      high: 104,
      low: 100,
      close: 104,
      volume_base: 3,
      volume_quote: 308,
      trades: 2,
      funding_rate: 0.0003,
      open_interest: 1250,
      open_interest_base: 12,
      liquidations_long_usd: 300,
      liquidations_short_usd: 100,
      whale_flow: 3_000_000
    })
    for (const f of [
      'open',
      'close',
      'trades',
      'funding_rate',
      'open_interest',
      'whale_flow',
      'liquidations_long_usd'
    ]) {
      expect(h1[f], f).toBeNull()
    }
    expect(h2).toMatchObject({ open: 101, close: 101, funding_rate: null })
    expect(h3).toMatchObject({ open: null, funding_rate: 0 })
    // hours 1 and 4..23 have nothing at all: listed as gaps
    expect(body.gaps).toEqual([
      { start: D0 + HOUR, end: D0 + 2 * HOUR },
      { start: D0 + 4 * HOUR, end: D0 + DAY }
    ])
  })

  it('reads raw tables below one hour and answers several symbols per grid', async () => {
    const body = await jsonBody(
      await get(
        `/v1/backtest/data?symbols=ALN,ALN-USDT-SWAP&timeframe=15m&start=${day}&end=${day}&fields=ohlcv,funding_rate,oi`
      )
    )
    expect(body.data).toHaveLength(2 * 96)
    const bn = body.data.filter((r: { exchange: string }) => r.exchange === 'binance')
    const okx = body.data.filter((r: { exchange: string }) => r.exchange === 'okx')
    expect(bn[0]).toMatchObject({ open: 100, close: 100, funding_rate: 0.0001, open_interest: null })
    expect(bn[1]).toMatchObject({ open: 104, close: 104, funding_rate: null, open_interest: 1000 })
    expect(bn[3]).toMatchObject({ open: null, funding_rate: 0.0003, open_interest: 1250 })
    expect(okx[8]).toMatchObject({ timestamp: D0 + 2 * HOUR, open: 99, funding_rate: null })
  })

  it('refuses too many rows, too many symbols, bad dates and unknown fields with a 400', async () => {
    const cases: [string, string][] = [
      [`symbols=ALN&timeframe=1m&start=${day}&end=${new Date(D0 + 80 * DAY).toISOString().slice(0, 10)}`, 'start'],
      [
        `symbols=${Array.from({ length: 21 }, (_, i) => `S${i}`).join(',')}&timeframe=1h&start=${day}&end=${day}`,
        'symbols'
      ],
      [`symbols=ALN&timeframe=1h&start=2025-02-30&end=${day}`, 'start'],
      [`symbols=ALN&timeframe=1h&start=${day}&end=2020-01-01`, 'end'],
      [`symbols=ALN&timeframe=1h&start=${day}&end=${day}&fields=ohlcv,vibes`, 'fields'],
      [`symbols=NOPE&timeframe=1h&start=${day}&end=${day}`, 'symbols']
    ]
    for (const [query, param] of cases) {
      const res = await get(`/v1/backtest/data?${query}`)
      expect(res.status, query).toBe(400)
      expect((await jsonBody(res)).error.param, query).toBe(param)
    }
    const first = new Date(D0 - 28 * DAY).toISOString().slice(0, 10)
    const res = await get(`/v1/backtest/data?symbols=ALN,ALN-USDT-SWAP,ALB&timeframe=1m&start=${first}&end=${day}`)
    expect(res.status).toBe(400)
    expect((await jsonBody(res)).error.message).toContain('at most 100000')
  })
})

describe('GET /v1/historical/correlated-data', () => {
  it('accepts the spec dataset names and any interval tiled by a candle table', async () => {
    const body = await jsonBody(
      await get(
        `/v1/historical/correlated-data?asset=ALN&start_time=${day}&end_time=${day}&include=ohlcv,whale_accumulation,funding_rates&interval=2h`
      )
    )
    expect(body.meta).toMatchObject({ timeframe: '2h', source: 'candles_1h', rows: 12 })
    expect(body.data[0]).toMatchObject({
      open: 100,
      close: 104,
      trades: 2,
      whale_flow: 3_000_000,
      funding_rate: 0.0003
    })
    expect(body.data[1]).toMatchObject({ open: 101, close: 101, whale_flow: null, funding_rate: 0 })
    expect(body.data[0]).not.toHaveProperty('open_interest')
  })

  it('answers 400 for a bad interval', async () => {
    const res = await get(`/v1/historical/correlated-data?asset=ALN&start_time=${day}&end_time=${day}&interval=1y`)
    expect(res.status).toBe(400)
    expect((await jsonBody(res)).error.param).toBe('interval')
  })
})
