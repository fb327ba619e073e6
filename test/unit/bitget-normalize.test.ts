import { describe, expect, it } from 'vitest'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { validateRecord } from '../../engine/records/validate.js'
import { BitgetNormalizer, FUNDING_SAMPLE_MS, OI_SAMPLE_MS } from '../../ingest/normalize/bitget.js'
import { usdtPerpetuals } from '../../ingest/normalize/bitget-markets.js'
import { RECONNECT_CHANNEL, reconnectMarker } from '../../ingest/normalize/trade-window.js'
import { INSTRUMENTS_PATH, longShortPath, recentTradesPath } from '../../ingest/sources/bitget/rest.js'
import {
  INSTRUMENTS,
  fillRow,
  liquidationRow,
  longShortBody,
  push,
  subscribeError,
  tickerRow,
  tradeRow
} from '../helpers/venues/bitget-fixtures.js'

const T = 1764300000000
const MIN = 60_000

function setup(gaps?: ConstructorParameters<typeof BitgetNormalizer>[0]): BitgetNormalizer {
  const n = new BitgetNormalizer(gaps)
  expect(n.normalize(INSTRUMENTS_PATH, INSTRUMENTS, T, [])).toBe('ok')
  return n
}

function run(n: BitgetNormalizer, channel: string, msg: unknown): { outcome: string; records: NormalizedRecord[] } {
  const records: NormalizedRecord[] = []
  const outcome = n.normalize(channel, msg, T, records)
  for (const r of records) expect(validateRecord(r.kind, r), r.kind).toMatchObject({ ok: true })
  return { outcome, records }
}

const ws = (n: BitgetNormalizer, msg: unknown) => run(n, 'ws', msg)

describe('Bitget market discovery', () => {
  it('keeps the trading USDT perpetuals with their funding interval and multiplier', () => {
    expect(usdtPerpetuals(INSTRUMENTS)).toEqual([
      { symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', multiplier: 1, intervalHours: 8 },
      { symbol: 'ETHUSDT', base: 'ETH', quote: 'USDT', multiplier: 1, intervalHours: 8 },
      { symbol: 'DOGEUSDT', base: 'DOGE', quote: 'USDT', multiplier: 1, intervalHours: 4 },
      { symbol: '1000SATSUSDT', base: 'SATS', quote: 'USDT', multiplier: 1000, intervalHours: 1 }
    ])
  })

  it('refuses an error answer and takes an empty list', () => {
    expect(usdtPerpetuals({ code: '40034', msg: 'Parameter does not exist', data: null })).toBeNull()
    expect(usdtPerpetuals({ code: '00000', msg: 'success', data: [] })).toEqual([])
  })
})

describe('Bitget trades', () => {
  it('maps updates: taker side, string price, size and time', () => {
    const n = setup()
    const { outcome, records } = ws(
      n,
      push('publicTrade', 'BTCUSDT', [tradeRow('9001', T, 'sell', '0.0150', '97001.5')], T + 3)
    )
    expect(outcome).toBe('ok')
    expect(records).toEqual([
      {
        kind: 'trade',
        ts: T,
        exchange: 'bitget',
        market: 'perp',
        symbol: 'BTCUSDT',
        base: 'BTC',
        quote: 'USDT',
        side: 'sell',
        price: 97001.5,
        qty: 0.015,
        trade_id: '9001'
      }
    ])
  })

  it('skips the snapshot sent on subscribe and repeated ids', () => {
    const n = setup()
    const row = tradeRow('9002', T, 'buy', '1', '3400.10')
    expect(ws(n, push('publicTrade', 'ETHUSDT', [row], T, 'snapshot'))).toEqual({ outcome: 'control', records: [] })
    expect(ws(n, push('publicTrade', 'ETHUSDT', [row], T)).records).toHaveLength(1)
    expect(ws(n, push('publicTrade', 'ETHUSDT', [row], T)).outcome).toBe('duplicate')
  })

  it('converts a market quoted per 1000 coins to the coin', () => {
    const n = setup()
    const { records } = ws(n, push('publicTrade', '1000SATSUSDT', [tradeRow('1', T, 'buy', '2000', '0.0003120')], T))
    expect(records[0]).toMatchObject({ base: 'SATS', qty: 2_000_000 })
    expect((records[0] as { price: number }).price).toBeCloseTo(0.000000312, 15)
  })

  it('counts malformed rows: unknown side, empty price, missing id, no symbol in the arg', () => {
    const n = setup()
    expect(ws(n, push('publicTrade', 'BTCUSDT', [{ ...tradeRow('2', T, 'buy', '1', '1'), S: 'Buy' }], T)).outcome).toBe(
      'malformed'
    )
    expect(ws(n, push('publicTrade', 'BTCUSDT', [tradeRow('3', T, 'buy', '1', '')], T)).outcome).toBe('malformed')
    expect(ws(n, push('publicTrade', 'BTCUSDT', [{ ...tradeRow('4', T, 'buy', '1', '1'), i: '' }], T)).outcome).toBe(
      'malformed'
    )
    expect(ws(n, push('publicTrade', null, [tradeRow('5', T, 'buy', '1', '1')], T)).outcome).toBe('malformed')
  })
})

describe('Bitget ticker: funding and open interest', () => {
  it('maps a snapshot to funding (instrument interval) and open interest (coins x mark)', () => {
    const n = setup()
    const { outcome, records } = ws(
      n,
      push(
        'ticker',
        'DOGEUSDT',
        [
          tickerRow({
            markPrice: '0.41',
            indexPrice: '0.4101',
            fundingRate: '-0.00025',
            openInterest: '120000000',
            nextFundingTime: '1764302400000'
          })
        ],
        T,
        'snapshot'
      )
    )
    expect(outcome).toBe('ok')
    expect(records).toEqual([
      {
        kind: 'funding',
        ts: T,
        exchange: 'bitget',
        symbol: 'DOGEUSDT',
        base: 'DOGE',
        funding_rate: -0.00025,
        interval_hours: 4,
        next_funding_ts: 1764302400000,
        mark_price: 0.41,
        index_price: 0.4101
      },
      {
        kind: 'open_interest',
        ts: T,
        exchange: 'bitget',
        symbol: 'DOGEUSDT',
        base: 'DOGE',
        oi_base: 120_000_000,
        oi_usd: 120_000_000 * 0.41
      }
    ])
  })

  it('merges updates: a field left out keeps its value; one record per minute unless settlement moves', () => {
    const n = setup()
    ws(n, push('ticker', 'BTCUSDT', [tickerRow()], T, 'snapshot'))
    expect(ws(n, push('ticker', 'BTCUSDT', [{ markPrice: '97500.0' }], T + 1000)).records).toEqual([])
    expect(n.tickerOf('BTCUSDT')).toMatchObject({ markPrice: 97500, openInterest: 41234.5678, fundingRate: 0.0001 })
    const later = ws(
      n,
      push('ticker', 'BTCUSDT', [{ lastPrice: '97510' }], T + Math.max(FUNDING_SAMPLE_MS, OI_SAMPLE_MS))
    )
    expect(later.records.map((r) => r.kind)).toEqual(['funding', 'open_interest'])
    expect(later.records[1]).toMatchObject({ oi_usd: 41234.5678 * 97500 })
    const settled = ws(
      n,
      push('ticker', 'BTCUSDT', [{ nextFundingTime: '1764345600000', fundingRate: '0.00012' }], T + MIN + 5)
    )
    expect(settled.records).toEqual([
      expect.objectContaining({ kind: 'funding', next_funding_ts: 1764345600000, funding_rate: 0.00012 })
    ])
  })

  it('takes an empty or "0" next funding time as unknown and an empty rate as no funding', () => {
    for (const next of ['', '0']) {
      const n = setup()
      const { records } = ws(n, push('ticker', 'ETHUSDT', [tickerRow({ nextFundingTime: next })], T, 'snapshot'))
      expect(records.find((r) => r.kind === 'funding')).toMatchObject({ next_funding_ts: null })
    }
    const n = setup()
    const { records } = ws(n, push('ticker', 'ETHUSDT', [tickerRow({ fundingRate: '', markPrice: '' })], T, 'snapshot'))
    expect(records).toEqual([]) // no rate: no funding; no mark: open interest waits for one
  })

  it('refuses a ticker with a field that is not a number', () => {
    const n = setup()
    expect(ws(n, push('ticker', 'BTCUSDT', [tickerRow({ markPrice: 'abc' })], T, 'snapshot')).outcome).toBe('malformed')
    expect(ws(n, push('ticker', 'BTCUSDT', [tickerRow()], Number.NaN, 'snapshot')).outcome).toBe('malformed')
  })
})

describe('Bitget liquidations and long/short', () => {
  it('stores the liquidation order side: a long position (buy) is closed by a sell', () => {
    const n = setup()
    const { records } = ws(
      n,
      push(
        'liquidation',
        null,
        [
          liquidationRow('ETHUSDT', T, 'buy', '2.5', '3390.1'),
          liquidationRow('1000SATSUSDT', T, 'sell', '10', '0.0003')
        ],
        T + 5
      )
    )
    expect(records).toEqual([
      {
        kind: 'liquidation',
        ts: T,
        exchange: 'bitget',
        symbol: 'ETHUSDT',
        base: 'ETH',
        side: 'sell',
        price: 3390.1,
        qty: 2.5
      },
      expect.objectContaining({ symbol: '1000SATSUSDT', base: 'SATS', side: 'buy', qty: 10_000 })
    ])
    expect(ws(n, push('liquidation', null, [liquidationRow('ETHUSDT', T, 'long' as 'buy', '1', '1')], T)).outcome).toBe(
      'malformed'
    )
  })

  it('maps each 5-minute long/short reading once, oldest first', () => {
    const n = setup()
    const body = longShortBody([
      [T, '0.62', '0.38'],
      [T - 300_000, '0.6', '0.4']
    ])
    const first = run(n, longShortPath('BTCUSDT'), body)
    expect(first.records.map((r) => r.ts)).toEqual([T - 300_000, T])
    expect(first.records[0]).toMatchObject({
      kind: 'long_short',
      symbol: 'BTCUSDT',
      long_account: 0.6,
      short_account: 0.4,
      long_short_ratio: 1.5
    })
    expect(run(n, longShortPath('BTCUSDT'), body).records).toEqual([])
  })
})

describe('Bitget protocol chatter, errors and junk', () => {
  it('tells acks, subscribe errors, unknown topics and bad actions apart', () => {
    const n = setup()
    const arg = { instType: 'usdt-futures', topic: 'ticker', symbol: 'BTCUSDT' }
    expect(ws(n, { event: 'subscribe', arg }).outcome).toBe('control')
    expect(ws(n, subscribeError({ ...arg, symbol: 'NOPEUSDT' })).outcome).toBe('error')
    expect(ws(n, push('books5', 'BTCUSDT', [], T)).outcome).toBe('unknown')
    expect(ws(n, { ...push('ticker', 'BTCUSDT', [tickerRow()], T), action: 'partial' }).outcome).toBe('malformed')
    expect(ws(n, { hello: 1 }).outcome).toBe('unknown')
    expect(run(n, INSTRUMENTS_PATH, { code: '429', msg: 'Too Many Requests', data: null }).outcome).toBe('error')
  })
})

describe('Bitget reconnect windows', () => {
  it('fills the trades missed while a connection was down from the fills page', () => {
    const opened: string[] = []
    const served: [string, number, boolean][] = []
    const n = setup({ opened: (s) => opened.push(s), served: (s, r, b) => served.push([s, r, b]) })
    const rows = [1, 2, 3, 4, 5].map((i) => tradeRow(`t${i}`, T + i, 'buy', '0.1', '97000'))
    ws(n, push('publicTrade', 'BTCUSDT', [rows[0]!, rows[1]!], T))
    expect(run(n, RECONNECT_CHANNEL, JSON.parse(reconnectMarker(['BTCUSDT', 'ETHUSDT']))).outcome).toBe('control')
    expect(opened).toEqual(['BTCUSDT']) // ETHUSDT never traded
    ws(n, push('publicTrade', 'BTCUSDT', [rows[4]!], T))
    const page = { code: '00000', msg: 'success', requestTime: T, data: [...rows].reverse().map(fillRow) }
    const { records } = run(n, recentTradesPath('BTCUSDT'), page)
    expect(records.map((r) => (r as { trade_id: string }).trade_id)).toEqual(['t3', 't4'])
    expect(served).toEqual([['BTCUSDT', 2, true]])
  })

  it('closes the window unfilled on an error answer', () => {
    const served: [string, number, boolean][] = []
    const n = setup({ opened: () => {}, served: (s, r, b) => served.push([s, r, b]) })
    ws(n, push('publicTrade', 'BTCUSDT', [tradeRow('a', T, 'buy', '1', '1')], T))
    run(n, RECONNECT_CHANNEL, { symbols: ['BTCUSDT'] })
    expect(run(n, recentTradesPath('BTCUSDT'), { code: '40034', msg: 'symbol not exist', data: null }).outcome).toBe(
      'error'
    )
    expect(served).toEqual([['BTCUSDT', 0, false]])
  })
})
