import { describe, it, expect } from 'vitest'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { validateRecord } from '../../engine/records/validate.js'
import { BinanceNormalizer, FUNDING_SAMPLE_MS } from '../../ingest/normalize/binance.js'
import { guessMarket, scaledBase, usdtPerpetuals } from '../../ingest/normalize/binance-markets.js'
import {
  EXCHANGE_INFO,
  FUNDING_INFO,
  aggTradeEvent,
  forceOrderEvent,
  longShortBody,
  markPriceUpdate,
  openInterestBody
} from '../helpers/venues/binance-fixtures.js'
import { T, setup, run, ws } from '../helpers/venues/binance-normalize.js'

describe('Binance market discovery', () => {
  it('keeps USDT perpetuals that are TRADING and converts scaled bases', () => {
    expect(usdtPerpetuals(EXCHANGE_INFO)).toEqual([
      { symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', multiplier: 1 },
      { symbol: 'ETHUSDT', base: 'ETH', quote: 'USDT', multiplier: 1 },
      { symbol: 'SOLVUSDT', base: 'SOLV', quote: 'USDT', multiplier: 1 },
      { symbol: '1000PEPEUSDT', base: 'PEPE', quote: 'USDT', multiplier: 1000 }
    ])
    expect(scaledBase('1INCH')).toEqual({ base: '1INCH', multiplier: 1 })
    expect(scaledBase('1MBABYDOGE')).toEqual({ base: 'BABYDOGE', multiplier: 1_000_000 })
    expect(scaledBase('1000000MOG')).toEqual({ base: 'MOG', multiplier: 1_000_000 })
    expect(guessMarket('1000SHIBUSDT')).toEqual({
      symbol: '1000SHIBUSDT',
      base: 'SHIB',
      quote: 'USDT',
      multiplier: 1000
    })
  })
})

describe('Binance raw message -> normalized record', () => {
  it('aggTrade: taker side from m (m=true: the buyer was maker, the taker sold)', () => {
    const { n } = setup()
    const sell = run(n, 'ws', ws('btcusdt@aggTrade', aggTradeEvent('BTCUSDT', 5001, T, '97001.50', '0.125', true)))
    const buy = run(n, 'ws', ws('btcusdt@aggTrade', aggTradeEvent('BTCUSDT', 5002, T + 1, '97001.60', '0.010', false)))
    expect(sell.records).toMatchInlineSnapshot(`
      [
        {
          "base": "BTC",
          "exchange": "binance",
          "kind": "trade",
          "market": "perp",
          "price": 97001.5,
          "qty": 0.125,
          "quote": "USDT",
          "side": "sell",
          "symbol": "BTCUSDT",
          "trade_id": "5001",
          "ts": 1732270000000,
        },
      ]
    `)
    expect(buy.records[0]).toMatchObject({ side: 'buy', trade_id: '5002' })
  })

  it('aggTrade of a scaled market is converted to the plain coin', () => {
    const { n } = setup()
    const { records } = run(
      n,
      'ws',
      ws('1000pepeusdt@aggTrade', aggTradeEvent('1000PEPEUSDT', 7, T, '0.0201600', '150000', false))
    )
    expect(records).toMatchInlineSnapshot(`
      [
        {
          "base": "PEPE",
          "exchange": "binance",
          "kind": "trade",
          "market": "perp",
          "price": 0.00002016,
          "qty": 150000000,
          "quote": "USDT",
          "side": "buy",
          "symbol": "1000PEPEUSDT",
          "trade_id": "7",
          "ts": 1732270000000,
        },
      ]
    `)
  })

  it('markPrice array: funding with the market interval (1 h, 4 h, default 8 h), sampled per minute', () => {
    const { n } = setup()
    const next = T + 1_800_000
    const arr = ['BTCUSDT', 'SOLVUSDT', '1000PEPEUSDT'].map((s) => markPriceUpdate(s, T, '0.00010000', next))
    const first = run(n, 'ws', ws('!markPrice@arr@1s', arr))
    expect(first.records).toMatchInlineSnapshot(`
      [
        {
          "base": "BTC",
          "exchange": "binance",
          "funding_rate": 0.0001,
          "index_price": 96990.39999,
          "interval_hours": 8,
          "kind": "funding",
          "mark_price": 97000.1,
          "next_funding_ts": 1732271800000,
          "symbol": "BTCUSDT",
          "ts": 1732270000000,
        },
        {
          "base": "SOLV",
          "exchange": "binance",
          "funding_rate": 0.0001,
          "index_price": 0.05122488,
          "interval_hours": 1,
          "kind": "funding",
          "mark_price": 0.05123,
          "next_funding_ts": 1732271800000,
          "symbol": "SOLVUSDT",
          "ts": 1732270000000,
        },
        {
          "base": "PEPE",
          "exchange": "binance",
          "funding_rate": 0.0001,
          "index_price": 0.00002014799,
          "interval_hours": 4,
          "kind": "funding",
          "mark_price": 0.000020150000000000002,
          "next_funding_ts": 1732271800000,
          "symbol": "1000PEPEUSDT",
          "ts": 1732270000000,
        },
      ]
    `)
    const again = arr.map((m) => ({ ...m, E: T + 1000, r: '0.00020000' }))
    expect(run(n, 'ws', ws('!markPrice@arr@1s', again)).records).toEqual([])
    const later = arr.map((m) => ({ ...m, E: T + FUNDING_SAMPLE_MS }))
    expect(run(n, 'ws', ws('!markPrice@arr@1s', later)).records).toHaveLength(3)
    // a settlement moves the next funding time: sampled at once
    const settled = arr.map((m) => ({ ...m, E: T + FUNDING_SAMPLE_MS + 1000, T: next + 3_600_000 }))
    expect(run(n, 'ws', ws('!markPrice@arr@1s', settled)).records).toHaveLength(3)
  })

  it('forceOrder: side of the liquidation order, average price, filled size', () => {
    const { n } = setup()
    const { records } = run(n, 'ws', ws('!forceOrder@arr', forceOrderEvent('ETHUSDT', 'SELL', T, '3391.20', '12.500')))
    expect(records).toMatchInlineSnapshot(`
      [
        {
          "base": "ETH",
          "exchange": "binance",
          "kind": "liquidation",
          "price": 3391.2,
          "qty": 12.5,
          "side": "sell",
          "symbol": "ETHUSDT",
          "ts": 1732270000000,
        },
      ]
    `)
  })

  it('open interest: base coin from contracts, USD at the latest mark price (waits for the first mark)', () => {
    const { n } = setup()
    const early = run(n, '/fapi/v1/openInterest?symbol=1000PEPEUSDT', openInterestBody('1000PEPEUSDT', '5000000', T))
    expect(early).toEqual({ outcome: 'ok', records: [] })
    const mark = run(n, 'ws', ws('!markPrice@arr@1s', [markPriceUpdate('1000PEPEUSDT', T + 500, '0.0001', T + 9e6)]))
    expect(mark.records.map((r) => r.kind)).toEqual(['open_interest', 'funding'])
    expect(mark.records[0]).toMatchInlineSnapshot(`
      {
        "base": "PEPE",
        "exchange": "binance",
        "kind": "open_interest",
        "oi_base": 5000000000,
        "oi_usd": 100750,
        "symbol": "1000PEPEUSDT",
        "ts": 1732270000000,
      }
    `)
    const btc = run(n, '/fapi/v1/openInterest?symbol=BTCUSDT', openInterestBody('BTCUSDT', '10659.509', T))
    expect(btc.records).toEqual([]) // no BTC mark yet
  })

  it('long/short: each 5-minute reading once', () => {
    const { n } = setup()
    const body = longShortBody('BTCUSDT', '1.8105', '0.6442', '0.3558', T)
    const first = run(n, '/futures/data/globalLongShortAccountRatio?symbol=BTCUSDT&period=5m&limit=1', body)
    expect(first.records).toMatchInlineSnapshot(`
      [
        {
          "base": "BTC",
          "exchange": "binance",
          "kind": "long_short",
          "long_account": 0.6442,
          "long_short_ratio": 1.8105,
          "short_account": 0.3558,
          "symbol": "BTCUSDT",
          "ts": 1732270000000,
        },
      ]
    `)
    expect(run(n, '/futures/data/globalLongShortAccountRatio?symbol=BTCUSDT&period=5m&limit=1', body).records).toEqual(
      []
    )
  })

  it('every record passes the ingest validation of its kind', () => {
    const { n } = setup()
    const out: NormalizedRecord[] = []
    n.normalize('ws', ws('!markPrice@arr@1s', [markPriceUpdate('BTCUSDT', T, '-0.00003000', T + 1)]), T, out)
    n.normalize('ws', ws('btcusdt@aggTrade', aggTradeEvent('BTCUSDT', 1, T, '97000', '1', true)), T, out)
    n.normalize('ws', ws('!forceOrder@arr', forceOrderEvent('BTCUSDT', 'BUY', T, '97100', '0.5')), T, out)
    n.normalize('/fapi/v1/openInterest?symbol=BTCUSDT', openInterestBody('BTCUSDT', '100', T), T, out)
    n.normalize(
      '/futures/data/globalLongShortAccountRatio?symbol=BTCUSDT',
      longShortBody('BTCUSDT', '1.2', '0.5455', '0.4545', T),
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

describe('Binance optional fields: missing, empty, zero or null', () => {
  const mark = (over: Record<string, unknown>) => ({ ...markPriceUpdate('BTCUSDT', T, '0.00010000', T + 1), ...over })
  const funding = (n: BinanceNormalizer, row: object, at = T) =>
    run(n, 'ws', ws('!markPrice@arr@1s', [{ ...row, E: at }]))

  it('mark price: funding without mark, index or next funding time; neither mark nor rate is skipped', () => {
    const { n } = setup()
    const noMark = funding(n, mark({ p: '', i: null, T: 0 }))
    expect(noMark).toMatchObject({
      outcome: 'ok',
      records: [{ funding_rate: 0.0001, mark_price: null, index_price: null, next_funding_ts: null }]
    })
    const { p: _p, i: _i, T: _T, ...bare } = mark({}) as Record<string, unknown>
    expect(funding(n, bare, T + FUNDING_SAMPLE_MS).records).toMatchObject([{ mark_price: null, index_price: null }])
    expect(funding(n, mark({ i: '0' }), T + 2 * FUNDING_SAMPLE_MS).records).toMatchObject([{ index_price: null }])
    // a rate of zero is a rate (a perpetual at 0), not a missing one
    expect(funding(n, mark({ r: '0.00000000' }), T + 3 * FUNDING_SAMPLE_MS).records).toMatchObject([
      { funding_rate: 0 }
    ])
    // neither a mark nor a rate: nothing to take
    for (const [p, r] of [
      ['', ''],
      [null, null],
      ['0', undefined]
    ]) {
      expect(funding(n, mark({ p, r }), T + 4 * FUNDING_SAMPLE_MS)).toEqual({ outcome: 'unknown', records: [] })
    }
    // present but not a number: malformed
    for (const over of [{ p: 'abc' }, { r: 'abc' }, { i: '-1' }, { T: 'soon' }]) {
      expect(funding(n, mark(over), T + 5 * FUNDING_SAMPLE_MS).outcome, JSON.stringify(over)).toBe('malformed')
    }
  })

  it('open interest: a missing or empty reading is malformed, not a reading of 0', () => {
    const { n } = setup()
    for (const contracts of ['', null, undefined]) {
      const body = { ...openInterestBody('BTCUSDT', '1', T), openInterest: contracts }
      expect(run(n, '/fapi/v1/openInterest?symbol=BTCUSDT', body).outcome).toBe('malformed')
    }
    run(n, 'ws', ws('!markPrice@arr@1s', [markPriceUpdate('BTCUSDT', T, '0.0001', T + 1)]))
    expect(run(n, '/fapi/v1/openInterest?symbol=BTCUSDT', openInterestBody('BTCUSDT', '0', T)).records).toMatchObject([
      { oi_base: 0 }
    ])
  })

  it('long/short: account shares missing, empty, "0" or null are null; a missing ratio or time is malformed', () => {
    const { n } = setup()
    const path = '/futures/data/globalLongShortAccountRatio?symbol=BTCUSDT&period=5m&limit=1'
    const row = (over: Record<string, unknown>, ts: number) => [
      { ...longShortBody('BTCUSDT', '1.2', '0.5455', '0.4545', ts)[0], ...over }
    ]
    const shares: [unknown, unknown][] = [
      ['', ''],
      [null, null],
      ['0', '0'],
      [undefined, undefined]
    ]
    shares.forEach(([longAccount, shortAccount], i) => {
      const { outcome, records } = run(n, path, row({ longAccount, shortAccount }, T + i * 300_000))
      expect(outcome).toBe('ok')
      expect(records).toMatchObject([{ long_short_ratio: 1.2, long_account: null, short_account: null }])
    })
    for (const over of [
      { longShortRatio: '' },
      { longShortRatio: null },
      { timestamp: '' },
      { timestamp: null },
      { longAccount: 'x' }
    ]) {
      expect(run(n, path, row(over, T + 9 * 300_000)), JSON.stringify(over)).toEqual({
        outcome: 'malformed',
        records: []
      })
    }
  })

  it('a null entry in the exchangeInfo or fundingInfo list does not lose the other markets', () => {
    const n = new BinanceNormalizer()
    expect(
      run(n, '/fapi/v1/exchangeInfo', { ...EXCHANGE_INFO, symbols: [null, ...EXCHANGE_INFO.symbols] }).outcome
    ).toBe('ok')
    expect(run(n, '/fapi/v1/fundingInfo', [null, ...FUNDING_INFO]).outcome).toBe('ok')
    expect(n.marketMeta('1000PEPEUSDT')).toMatchObject({ base: 'PEPE', multiplier: 1000 })
    const { records } = run(n, 'ws', ws('!markPrice@arr@1s', [markPriceUpdate('SOLVUSDT', T, '0.0001', T + 1)]))
    expect(records).toMatchObject([{ interval_hours: 1 }])
  })
})
