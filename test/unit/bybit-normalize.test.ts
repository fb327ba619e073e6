import { describe, it, expect } from 'vitest'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { validateRecord } from '../../engine/records/validate.js'
import { BybitNormalizer, FUNDING_SAMPLE_MS, OI_SAMPLE_MS } from '../../ingest/normalize/bybit.js'
import { bybitBase, guessBybitMarket, instrumentsPage } from '../../ingest/normalize/bybit-markets.js'
import {
  INSTRUMENTS,
  accountRatioBody,
  instrumentsBody,
  liquidationMessage,
  recentTradeRow,
  recentTradesBody,
  tickerFields,
  tickerMessage,
  tradeMessage,
  tradeRow
} from '../helpers/venues/bybit-fixtures.js'

const T = 1732270000000
const INFO = '/v5/market/instruments-info?category=linear&limit=1000'

function setup(): BybitNormalizer {
  const n = new BybitNormalizer()
  expect(n.normalize(INFO, instrumentsBody(INSTRUMENTS, ''), T, [])).toBe('ok')
  return n
}

function run(n: BybitNormalizer, channel: string, msg: unknown): { outcome: string; records: NormalizedRecord[] } {
  const records: NormalizedRecord[] = []
  const outcome = n.normalize(channel, msg, T, records)
  return { outcome, records }
}

describe('Bybit market discovery', () => {
  it('keeps USDT perpetuals that are Trading, with the interval from fundingInterval minutes', () => {
    expect(instrumentsPage(instrumentsBody(INSTRUMENTS, 'next-page'))).toEqual({
      markets: [
        { symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', multiplier: 1, intervalHours: 8 },
        { symbol: 'ETHUSDT', base: 'ETH', quote: 'USDT', multiplier: 1, intervalHours: 8 },
        { symbol: 'ORDIUSDT', base: 'ORDI', quote: 'USDT', multiplier: 1, intervalHours: 1 },
        { symbol: '1000PEPEUSDT', base: 'PEPE', quote: 'USDT', multiplier: 1000, intervalHours: 4 }
      ],
      nextCursor: 'next-page'
    })
    expect(instrumentsPage({ retCode: 10001, retMsg: 'params error', result: {} })).toBeNull()
  })

  it('converts multiplier bases before or after the coin, and leaves real coins alone', () => {
    expect(bybitBase('1000PEPE')).toEqual({ base: 'PEPE', multiplier: 1000 })
    expect(bybitBase('10000LADYS')).toEqual({ base: 'LADYS', multiplier: 10000 })
    expect(bybitBase('1000000MOG')).toEqual({ base: 'MOG', multiplier: 1_000_000 })
    expect(bybitBase('SHIB1000')).toEqual({ base: 'SHIB', multiplier: 1000 })
    expect(bybitBase('1INCH')).toEqual({ base: '1INCH', multiplier: 1 })
    expect(bybitBase('A8')).toEqual({ base: 'A8', multiplier: 1 })
    expect(guessBybitMarket('1000BONKUSDT')).toEqual({
      symbol: '1000BONKUSDT',
      base: 'BONK',
      quote: 'USDT',
      multiplier: 1000
    })
  })
})

describe('Bybit raw message -> normalized record', () => {
  it('publicTrade: taker side from S, every trade of the batch, UUID ids', () => {
    const n = setup()
    const msg = tradeMessage('BTCUSDT', T + 3, [
      tradeRow('BTCUSDT', T, 'Buy', '0.125', '97001.50', '20f43950-d8dd-5b31-9112-a178eb6023af'),
      tradeRow('BTCUSDT', T + 1, 'Sell', '0.010', '97001.40', '8b1e3c8a-2f7e-5c0d-9d51-4f0a1e2b3c4d')
    ])
    const { outcome, records } = run(n, 'ws', msg)
    expect(outcome).toBe('ok')
    expect(records).toMatchInlineSnapshot(`
      [
        {
          "base": "BTC",
          "exchange": "bybit",
          "kind": "trade",
          "market": "perp",
          "price": 97001.5,
          "qty": 0.125,
          "quote": "USDT",
          "side": "buy",
          "symbol": "BTCUSDT",
          "trade_id": "20f43950-d8dd-5b31-9112-a178eb6023af",
          "ts": 1732270000000,
        },
        {
          "base": "BTC",
          "exchange": "bybit",
          "kind": "trade",
          "market": "perp",
          "price": 97001.4,
          "qty": 0.01,
          "quote": "USDT",
          "side": "sell",
          "symbol": "BTCUSDT",
          "trade_id": "8b1e3c8a-2f7e-5c0d-9d51-4f0a1e2b3c4d",
          "ts": 1732270000001,
        },
      ]
    `)
  })

  it('publicTrade of a 1000-coin market is converted to the plain coin', () => {
    const n = setup()
    const { records } = run(
      n,
      'ws',
      tradeMessage('1000PEPEUSDT', T, [tradeRow('1000PEPEUSDT', T, 'Buy', '150000', '0.0201600', 'p-1')])
    )
    expect(records[0]).toMatchObject({ base: 'PEPE', price: 0.00002016, qty: 150_000_000, side: 'buy' })
  })

  it('tickers: snapshot then deltas merged; a delta that only moves the mark keeps OI and funding', () => {
    const n = setup()
    const snap = tickerMessage(
      'snapshot',
      tickerFields('1000PEPEUSDT', { openInterest: '5000000', openInterestValue: '100750.00' }),
      T
    )
    const first = run(n, 'ws', snap)
    expect(first.records).toMatchInlineSnapshot(`
      [
        {
          "base": "PEPE",
          "exchange": "bybit",
          "funding_rate": 0.0001,
          "index_price": 0.000020148,
          "interval_hours": 4,
          "kind": "funding",
          "mark_price": 0.000020150000000000002,
          "next_funding_ts": 1732273200000,
          "symbol": "1000PEPEUSDT",
          "ts": 1732270000000,
        },
        {
          "base": "PEPE",
          "exchange": "bybit",
          "kind": "open_interest",
          "oi_base": 5000000000,
          "oi_usd": 100750,
          "symbol": "1000PEPEUSDT",
          "ts": 1732270000000,
        },
      ]
    `)
    // within the minute: merged, nothing emitted
    const mark = tickerMessage('delta', { symbol: '1000PEPEUSDT', markPrice: '0.0202000' }, T + 100)
    expect(run(n, 'ws', mark)).toEqual({ outcome: 'ok', records: [] })
    // a minute later a delta with only the mark price: funding and OI come from the merged state
    const later = tickerMessage('delta', { symbol: '1000PEPEUSDT', markPrice: '0.0203000' }, T + FUNDING_SAMPLE_MS)
    const { records } = run(n, 'ws', later)
    expect(records).toEqual([
      {
        kind: 'funding',
        ts: T + FUNDING_SAMPLE_MS,
        exchange: 'bybit',
        symbol: '1000PEPEUSDT',
        base: 'PEPE',
        funding_rate: 0.0001,
        interval_hours: 4,
        next_funding_ts: 1732273200000,
        mark_price: 0.0203 / 1000,
        index_price: 0.020148 / 1000
      },
      {
        kind: 'open_interest',
        ts: T + OI_SAMPLE_MS,
        exchange: 'bybit',
        symbol: '1000PEPEUSDT',
        base: 'PEPE',
        oi_base: 5_000_000_000,
        oi_usd: 100750
      }
    ])
    expect(n.tickerOf('1000PEPEUSDT')).toMatchObject({
      markPrice: 0.0203,
      openInterest: 5_000_000,
      fundingRate: 0.0001
    })
  })

  it('tickers: a settlement (next funding time moves) is sampled at once; a new snapshot replaces the state', () => {
    const n = setup()
    run(n, 'ws', tickerMessage('snapshot', tickerFields('ORDIUSDT'), T))
    const settled = tickerMessage(
      'delta',
      { symbol: 'ORDIUSDT', fundingRate: '-0.0003', nextFundingTime: '1732276800000' },
      T + 1000
    )
    const { records } = run(n, 'ws', settled)
    expect(records).toEqual([
      expect.objectContaining({
        kind: 'funding',
        ts: T + 1000,
        funding_rate: -0.0003,
        interval_hours: 1,
        next_funding_ts: 1732276800000
      })
    ])
    // a snapshot (after a resubscribe) without open interest fields: OI is unknown again, not kept
    const fresh = tickerFields('ORDIUSDT')
    delete (fresh as Record<string, string | undefined>)['openInterest']
    run(n, 'ws', tickerMessage('snapshot', fresh, T + 2000))
    expect(n.tickerOf('ORDIUSDT')!.openInterest).toBeNaN()
  })

  it('tickers: the interval follows the ticker fundingIntervalHour when Bybit changes it', () => {
    const n = setup()
    run(n, 'ws', tickerMessage('snapshot', tickerFields('BTCUSDT'), T))
    const { records } = run(
      n,
      'ws',
      tickerMessage('delta', { symbol: 'BTCUSDT', fundingIntervalHour: '4', nextFundingTime: '1732284400000' }, T + 5)
    )
    expect(records[0]).toMatchObject({ kind: 'funding', interval_hours: 4, next_funding_ts: 1732284400000 })
  })

  it('allLiquidation: S is the liquidated position, stored as the liquidation order side', () => {
    const n = setup()
    const longs = run(n, 'ws', liquidationMessage('ETHUSDT', T, 'Buy', '12.50', '3391.20'))
    expect(longs.records).toMatchInlineSnapshot(`
      [
        {
          "base": "ETH",
          "exchange": "bybit",
          "kind": "liquidation",
          "price": 3391.2,
          "qty": 12.5,
          "side": "sell",
          "symbol": "ETHUSDT",
          "ts": 1732270000000,
        },
      ]
    `)
    const shorts = run(n, 'ws', liquidationMessage('1000PEPEUSDT', T, 'Sell', '20000', '0.0202'))
    expect(shorts.records[0]).toMatchObject({ side: 'buy', base: 'PEPE', qty: 20_000_000, price: 0.0000202 })
  })

  it('account-ratio: ratio = buyRatio / sellRatio, each 5-minute reading once', () => {
    const n = setup()
    const path = '/v5/market/account-ratio?category=linear&symbol=BTCUSDT&period=5min&limit=1'
    const first = run(n, path, accountRatioBody('BTCUSDT', '0.6442', '0.3558', T))
    expect(first.records).toEqual([
      {
        kind: 'long_short',
        ts: T,
        exchange: 'bybit',
        symbol: 'BTCUSDT',
        base: 'BTC',
        long_short_ratio: 0.6442 / 0.3558,
        long_account: 0.6442,
        short_account: 0.3558
      }
    ])
    expect(run(n, path, accountRatioBody('BTCUSDT', '0.6442', '0.3558', T))).toEqual({ outcome: 'ok', records: [] })
  })

  it('every record passes the ingest validation of its kind', () => {
    const n = setup()
    const out: NormalizedRecord[] = []
    n.normalize('ws', tickerMessage('snapshot', tickerFields('BTCUSDT', { fundingRate: '-0.00003' }), T), T, out)
    n.normalize('ws', tradeMessage('BTCUSDT', T, [tradeRow('BTCUSDT', T, 'Sell', '1', '97000', 'x-1')]), T, out)
    n.normalize('ws', liquidationMessage('BTCUSDT', T, 'Sell', '0.5', '97100'), T, out)
    n.normalize(
      '/v5/market/account-ratio?category=linear&symbol=BTCUSDT',
      accountRatioBody('BTCUSDT', '0.5455', '0.4545', T),
      T,
      out
    )
    expect(out.map((r) => r.kind).sort()).toEqual(['funding', 'liquidation', 'long_short', 'open_interest', 'trade'])
    for (const r of out) {
      const { kind, ...fields } = r
      expect(validateRecord(kind, fields)).toMatchObject({ ok: true })
    }
  })
})

describe('Bybit optional fields: missing, empty, zero or null', () => {
  it('tickers: null or "" is "no value", not malformed; funding needs only the rate (mark and index null)', () => {
    const n = setup()
    const fields = { ...tickerFields('BTCUSDT'), markPrice: null, indexPrice: '', nextFundingTime: null }
    const snap = run(n, 'ws', tickerMessage('snapshot', fields as unknown as Record<string, string>, T))
    expect(snap.outcome).toBe('ok')
    expect(snap.records).toMatchObject([
      { kind: 'funding', funding_rate: 0.0001, mark_price: null, index_price: null, next_funding_ts: null },
      { kind: 'open_interest' }
    ])
    // a delta with null open interest: no value now, no OI record, still not an error
    const delta = tickerMessage('delta', { symbol: 'BTCUSDT', openInterest: null } as never, T + OI_SAMPLE_MS)
    expect(run(n, 'ws', delta)).toMatchObject({ outcome: 'ok', records: [{ kind: 'funding' }] })
    expect(n.tickerOf('BTCUSDT')!.openInterest).toBeNaN()
    // a mark of "0" is no mark either
    const zero = tickerMessage('snapshot', tickerFields('ETHUSDT', { markPrice: '0', indexPrice: '0' }), T)
    expect(run(n, 'ws', zero).records[0]).toMatchObject({ kind: 'funding', mark_price: null, index_price: null })
  })

  it('a trade id, trade time or reading time that is empty is malformed (no trade_id "", no time 0)', () => {
    const n = setup()
    const noId = tradeMessage('BTCUSDT', T, [tradeRow('BTCUSDT', T, 'Buy', '1', '97000', '')])
    expect(run(n, 'ws', noId)).toEqual({ outcome: 'malformed', records: [] })
    const page = recentTradesBody(
      [{ ...(recentTradeRow(tradeRow('BTCUSDT', T, 'Buy', '1', '97000', 'r-1')) as object), time: '' }],
      T
    )
    expect(run(n, '/v5/market/recent-trade?category=linear&symbol=BTCUSDT&limit=1000', page).outcome).toBe('malformed')
    const ratio = accountRatioBody('BTCUSDT', '0.6', '0.4', T) as { result: { list: Record<string, unknown>[] } }
    ratio.result.list[0]!['timestamp'] = ''
    const path = '/v5/market/account-ratio?category=linear&symbol=BTCUSDT&period=5min&limit=1'
    expect(run(n, path, ratio)).toEqual({ outcome: 'malformed', records: [] })
  })
})

describe('Bybit junk handling', () => {
  it('counts malformed, unknown, control and error messages without records', () => {
    const n = setup()
    const cases: [unknown, string][] = [
      [{ success: true, ret_msg: '', conn_id: 'c1', req_id: '1', op: 'subscribe' }, 'control'],
      [{ success: true, ret_msg: 'pong', conn_id: 'c1', req_id: '2', op: 'ping' }, 'control'],
      [
        {
          success: false,
          ret_msg: 'error:handler not found,topic:tickers.NOPE',
          conn_id: 'c1',
          req_id: '3',
          op: 'subscribe'
        },
        'error'
      ],
      [{ topic: 'orderbook.50.BTCUSDT', type: 'snapshot', ts: T, data: {} }, 'unknown'],
      [{ hello: 'world' }, 'unknown'],
      [
        tradeMessage('BTCUSDT', T, [{ ...(tradeRow('BTCUSDT', T, 'Buy', '1', '1', 'a') as object), S: 'Hold' }]),
        'malformed'
      ],
      [tradeMessage('BTCUSDT', T, [tradeRow('BTCUSDT', T, 'Buy', '0', '1', 'a')]), 'malformed'],
      [{ topic: 'publicTrade.BTCUSDT', type: 'snapshot', ts: T, data: 'nope' }, 'malformed'],
      [tickerMessage('delta', { symbol: 'BTCUSDT', markPrice: 'abc' }, T), 'malformed'],
      [{ topic: 'tickers.BTCUSDT', type: 'delta', data: { symbol: 'BTCUSDT' } }, 'malformed'],
      [liquidationMessage('BTCUSDT', T, 'Buy', '1', '-5'), 'malformed'],
      [[1, 2], 'malformed'],
      [42, 'malformed']
    ]
    for (const [msg, outcome] of cases) expect(run(n, 'ws', msg), JSON.stringify(msg)).toEqual({ outcome, records: [] })
    // a malformed mark price changed nothing
    expect(n.tickerOf('BTCUSDT')!.markPrice).toBeNaN()
    const bad = { retCode: 10001, retMsg: 'params error: symbol invalid', result: {}, retExtInfo: {}, time: T }
    expect(run(n, '/v5/market/account-ratio?category=linear&symbol=NOPE', bad).outcome).toBe('error')
    expect(run(n, '/v5/market/kline?category=linear', { retCode: 0, result: { list: [] } }).outcome).toBe('unknown')
  })
})
