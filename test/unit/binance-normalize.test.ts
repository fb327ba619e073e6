import { describe, it, expect } from 'vitest'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { validateRecord } from '../../engine/records/validate.js'
import { silentLogger } from '../../engine/log.js'
import { BinanceNormalizer, FUNDING_SAMPLE_MS, unsequencedId } from '../../ingest/normalize/binance.js'
import { BinanceSource } from '../../ingest/sources/binance.js'
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

const T = 1732270000000

function setup(): { n: BinanceNormalizer; gaps: [string, number, number][] } {
  const gaps: [string, number, number][] = []
  const n = new BinanceNormalizer((s, a, b) => gaps.push([s, a, b]))
  n.normalize('/fapi/v1/exchangeInfo', EXCHANGE_INFO, T, [])
  n.normalize('/fapi/v1/fundingInfo', FUNDING_INFO, T, [])
  return { n, gaps }
}

function run(n: BinanceNormalizer, channel: string, msg: unknown): { outcome: string; records: NormalizedRecord[] } {
  const records: NormalizedRecord[] = []
  const outcome = n.normalize(channel, msg, T, records)
  return { outcome, records }
}

const ws = (stream: string, data: unknown) => ({ stream, data })

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

describe('Binance sequence and junk handling', () => {
  it('reports aggTrade id gaps per symbol and skips duplicates; REST backfill rows bypass the check', () => {
    const { n, gaps } = setup()
    const t = (id: number, s = 'BTCUSDT') =>
      run(n, 'ws', ws(`${s.toLowerCase()}@aggTrade`, aggTradeEvent(s, id, T, '1', '1', false)))
    t(100)
    t(101)
    t(105)
    t(50, 'ETHUSDT')
    t(52, 'ETHUSDT')
    expect(gaps).toEqual([
      ['BTCUSDT', 102, 104],
      ['ETHUSDT', 51, 51]
    ])
    expect(t(105).outcome).toBe('duplicate')
    expect(t(99).outcome).toBe('duplicate')
    expect(n.duplicates).toBe(2)
    const rows = [102, 103, 104].map((id) => {
      const {
        e: _e,
        E: _E,
        s: _s,
        ...row
      } = aggTradeEvent('BTCUSDT', id, T, '1', '1', false) as Record<string, unknown>
      return row
    })
    const fill = run(n, '/fapi/v1/aggTrades?symbol=BTCUSDT&fromId=102&limit=3', rows)
    expect(fill.records.map((r) => (r as { trade_id: string }).trade_id)).toEqual(['102', '103', '104'])
    expect(t(106).outcome).toBe('ok')
    expect(gaps).toHaveLength(2)
  })

  it('counts malformed, unknown, control and error messages without records', () => {
    const { n } = setup()
    const cases: [unknown, string][] = [
      [{ result: null, id: 1 }, 'control'],
      [{ error: { code: 2, msg: 'Invalid request' }, id: 3 }, 'error'],
      [ws('btcusdt@bookTicker', { e: 'bookTicker', s: 'BTCUSDT' }), 'unknown'],
      [ws('btcusdt@aggTrade', { e: 'aggTrade', s: 'BTCUSDT', a: 'x', p: '1', q: '1', T, m: true }), 'malformed'],
      [ws('btcusdt@aggTrade', { e: 'aggTrade', s: 'BTCUSDT', a: 9, p: 'abc', q: '1', T, m: true }), 'malformed'],
      [ws('btcusdt@aggTrade', { e: 'aggTrade', s: 'BTCUSDT', a: 9, p: '1', q: '0', T, m: true }), 'malformed'],
      [ws('!forceOrder@arr', { e: 'forceOrder', E: T, o: { s: 'BTCUSDT', S: 'HOLD', T } }), 'malformed'],
      [ws('x', null), 'malformed'],
      [42, 'malformed']
    ]
    for (const [msg, outcome] of cases) expect(run(n, 'ws', msg)).toEqual({ outcome, records: [] })
    expect(run(n, '/fapi/v1/openInterest?symbol=NOPE', { code: -1121, msg: 'Invalid symbol.' }).outcome).toBe('error')
    expect(run(n, '/fapi/v1/klines?symbol=BTCUSDT', []).outcome).toBe('unknown')
  })
})

describe('Binance aggTrade without its aggregate id (a)', () => {
  /** an aggTrade event as captured without `a` (f = first trade id, here 3 × the id it lacked) */
  const noId = (lacked: number, over: Record<string, unknown> = {}) => {
    const { a: _a, ...rest } = aggTradeEvent('BTCUSDT', lacked, T + lacked, '97000.5', '0.25', true) as Record<
      string,
      unknown
    >
    return { ...rest, ...over }
  }
  const restRow = (id: number) => {
    const {
      e: _e,
      E: _E,
      s: _s,
      ...row
    } = aggTradeEvent('BTCUSDT', id, T + id, '97000.5', '0.25', true) as Record<string, unknown>
    return row
  }

  it('is stored outside the gap check, trade_id from its first trade id, counted as unsequenced', () => {
    const { n, gaps } = setup()
    run(n, 'ws', ws('btcusdt@aggTrade', aggTradeEvent('BTCUSDT', 100, T, '97000', '0.1', false)))
    const lone = run(n, 'ws', ws('btcusdt@aggTrade', noId(101)))
    expect(lone).toMatchObject({ outcome: 'ok', records: [{ kind: 'trade', trade_id: 'f303', side: 'sell' }] })
    expect(n.unsequenced).toBe(1)
    expect(gaps).toEqual([])
    // the same message again: the same id, a duplicate
    expect(run(n, 'ws', ws('btcusdt@aggTrade', noId(101))).outcome).toBe('duplicate')
    // `a` null or "" is the same as missing
    expect(run(n, 'ws', ws('btcusdt@aggTrade', noId(104, { a: null }))).records).toMatchObject([{ trade_id: 'f312' }])
    expect(run(n, 'ws', ws('btcusdt@aggTrade', noId(105, { a: '' }))).records).toMatchObject([{ trade_id: 'f315' }])
    expect(n.unsequenced).toBe(3)
    // an id that is there but not a number is still malformed
    expect(run(n, 'ws', ws('btcusdt@aggTrade', noId(106, { a: 'x' }))).outcome).toBe('malformed')
  })

  it('the gap its missing id leaves is filled without storing the trade twice', () => {
    const { n, gaps } = setup()
    run(n, 'ws', ws('btcusdt@aggTrade', aggTradeEvent('BTCUSDT', 100, T, '97000', '0.1', false)))
    run(n, 'ws', ws('btcusdt@aggTrade', noId(101)))
    run(n, 'ws', ws('btcusdt@aggTrade', aggTradeEvent('BTCUSDT', 102, T + 102, '97001', '0.1', false)))
    expect(gaps).toEqual([['BTCUSDT', 101, 101]])
    // the fill brings 101 with its id: already stored (same first trade id)
    expect(run(n, '/fapi/v1/aggTrades?symbol=BTCUSDT&fromId=101&limit=1', [restRow(101)])).toEqual({
      outcome: 'ok',
      records: []
    })
    expect(n.duplicates).toBe(1)
    // later trades of that market still map, the fast path leaves them to the parsed path
    const text = JSON.stringify(ws('btcusdt@aggTrade', aggTradeEvent('BTCUSDT', 103, T, '97002', '0.1', false)))
    expect(n.normalizeText('ws', text, T, [])).toBeUndefined()
    expect(run(n, 'ws', JSON.parse(text)).records).toMatchObject([{ trade_id: '103' }])
    const eth = JSON.stringify(ws('ethusdt@aggTrade', aggTradeEvent('ETHUSDT', 7, T, '3400', '1', false)))
    expect(n.normalizeText('ws', eth, T, [])).toBe('ok')
  })

  it('without f either, the trade_id comes from time, price, size and side as sent: the same in every run', () => {
    const msg = ws('btcusdt@aggTrade', noId(101, { f: undefined, l: undefined }))
    const a = run(setup().n, 'ws', msg)
    const b = run(setup().n, 'ws', JSON.parse(JSON.stringify(msg)))
    expect(a.records).toMatchObject([{ trade_id: `t${T + 101}-97000.5-0.25-s` }])
    expect(b.records).toEqual(a.records)
    expect(unsequencedId({ p: '1.5', q: '2' }, 5, false)).toBe('t5-1.5-2-b')
  })

  it('shows in the source entry of /v1/health as unsequenced', () => {
    const source = new BinanceSource({
      wsUrl: 'ws://127.0.0.1:1',
      restUrl: 'http://127.0.0.1:1',
      symbols: [],
      log: silentLogger()
    })
    expect(source.status().unsequenced).toBe(0)
    source.normalizer.normalize('ws', ws('btcusdt@aggTrade', noId(101)), T, [])
    expect(source.status().unsequenced).toBe(1)
  })
})

describe('Binance delivery contracts (dated futures on the all-market streams)', () => {
  // as captured from `!markPrice@arr`: a delivery contract has no funding ("0.00000000" or "") and T 0
  const dated = (s: string, r: string) => ({ ...markPriceUpdate(s, T, r, 0), p: '98510.20000000', T: 0 })

  it('mark price rows of delivery contracts make no funding and no market; the perpetual rows still map', () => {
    const { n } = setup()
    const arr = [
      markPriceUpdate('BTCUSDT', T, '0.00010000', T + 1_800_000),
      dated('BTCUSDT_250328', '0.00000000'),
      dated('ETHUSDT_250627', '')
    ]
    const { outcome, records } = run(n, 'ws', ws('!markPrice@arr@1s', arr))
    expect(outcome).toBe('ok')
    expect(records.map((r) => [r.kind, (r as { symbol: string }).symbol])).toEqual([['funding', 'BTCUSDT']])
    expect(n.marketMeta('BTCUSDT_250328')).toBeUndefined()
    expect(n.marketMeta('ETHUSDT_250627')).toBeUndefined()
    // only delivery rows, or one delivery contract's own stream: skipped (unknown), not malformed
    expect(run(n, 'ws', ws('!markPrice@arr@1s', [dated('BTCUSDT_250926', '0.00000000')]))).toEqual({
      outcome: 'unknown',
      records: []
    })
    expect(run(n, 'ws', ws('btcusdt_250328@markPrice', dated('BTCUSDT_250328', '0')))).toEqual({
      outcome: 'unknown',
      records: []
    })
  })

  it('no other message of a delivery contract makes a perpetual market or a record', () => {
    const { n } = setup()
    const s = 'BTCUSDT_250328'
    const cases: [string, unknown][] = [
      ['ws', ws('btcusdt_250328@aggTrade', aggTradeEvent(s, 9, T, '98500', '0.5', true))],
      ['ws', ws('!forceOrder@arr', forceOrderEvent(s, 'SELL', T, '98400', '0.2'))],
      [`/fapi/v1/openInterest?symbol=${s}`, openInterestBody(s, '1234.5', T)],
      [`/futures/data/globalLongShortAccountRatio?symbol=${s}`, longShortBody(s, '1.5', '0.6', '0.4', T)]
    ]
    for (const [channel, msg] of cases) expect(run(n, channel, msg)).toEqual({ outcome: 'unknown', records: [] })
    const text = JSON.stringify(ws('btcusdt_250328@aggTrade', aggTradeEvent(s, 10, T, '98500', '0.5', true)))
    const out: NormalizedRecord[] = []
    expect(n.normalizeText('ws', text, T, out)).toBe('unknown')
    expect(out).toEqual([])
    expect(n.marketMeta(s)).toBeUndefined()
  })

  it('a contract exchangeInfo lists as dated is skipped whatever its name, even when seen before the list', () => {
    const n = new BinanceNormalizer()
    const mark = { ...markPriceUpdate('BTCUSDTQ', T, '0.00000000', 0), T: 0 } // a hypothetical unsuffixed name
    expect(run(n, 'ws', ws('!markPrice@arr@1s', [mark])).records).toHaveLength(1) // not known yet: a perpetual
    const info = {
      symbols: [
        ...EXCHANGE_INFO.symbols,
        { ...EXCHANGE_INFO.symbols[0], symbol: 'BTCUSDTQ', contractType: 'NEXT_QUARTER' }
      ]
    }
    expect(run(n, '/fapi/v1/exchangeInfo', info).outcome).toBe('ok')
    expect(n.marketMeta('BTCUSDTQ')).toBeUndefined()
    const later = { ...mark, E: T + FUNDING_SAMPLE_MS }
    expect(run(n, 'ws', ws('!markPrice@arr@1s', [later]))).toEqual({ outcome: 'unknown', records: [] })
    expect(n.marketMeta('BTCUSDT')).toMatchObject({ base: 'BTC' })
  })
})

describe('Binance aggTrade fast path (text, no JSON.parse)', () => {
  const text = (data: object, stream = 'btcusdt@aggTrade') => JSON.stringify({ stream, data })

  it('gives the same records as the parsed path, gap checks included', () => {
    const fast = setup()
    const slow = setup()
    const a: NormalizedRecord[] = []
    const b: NormalizedRecord[] = []
    for (const [id, m] of [
      [10, true],
      [11, false],
      [14, true],
      [14, false]
    ] as const) {
      const msg = text(aggTradeEvent('1000PEPEUSDT', id, T + id, '0.0201600', '150000', m), '1000pepeusdt@aggTrade')
      const o1 = fast.n.normalizeText('ws', msg, T, a)
      const o2 = slow.n.normalize('ws', JSON.parse(msg), T, b)
      expect(o1).toBe(o2)
    }
    expect(a).toEqual(b)
    expect(a).toHaveLength(3)
    expect(fast.gaps).toEqual(slow.gaps)
  })

  it('leaves every other shape to the parsed path', () => {
    const { n } = setup()
    const out: NormalizedRecord[] = []
    const ev = aggTradeEvent('BTCUSDT', 1, T, '97000.5', '0.1', true) as Record<string, unknown>
    const { a, ...noId } = ev
    const odd = [
      JSON.stringify(ev), // raw stream, no envelope
      text({ ...noId, a: String(a) }), // id as a string
      text(ev).replace('"p":"97000.5"', String.raw`"p":"9700\u0030.5"`), // an escape in a number string
      text({ ...ev, s: 'BTC"USDT' }), // a quote in the symbol (escaped by JSON.stringify)
      text({ m: true, ...noId, a }), // other key order
      text(ev).slice(0, -1), // cut short
      text(markPriceUpdate('BTCUSDT', T, '0.0001', T), '!markPrice@arr@1s')
    ]
    for (const msg of odd) expect(n.normalizeText('ws', msg, T, out), msg).toBeUndefined()
    expect(n.normalizeText('/fapi/v1/aggTrades?symbol=BTCUSDT', '[]', T, out)).toBeUndefined()
    expect(out).toEqual([])
  })
})
