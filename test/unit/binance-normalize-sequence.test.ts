/**
 * The Binance normalizer's aggTrade sequence: id gaps reported per symbol, duplicates skipped, trades without
 * their aggregate id stored outside the gap check, junk counted without records, and the text fast path giving
 * the records of the parsed path.
 */
import { describe, it, expect } from 'vitest'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { silentLogger } from '../../engine/log.js'
import { unsequencedId } from '../../ingest/normalize/binance.js'
import { BinanceSource } from '../../ingest/sources/binance.js'
import { aggTradeEvent, markPriceUpdate } from '../helpers/venues/binance-fixtures.js'
import { T, setup, run, ws } from '../helpers/venues/binance-normalize.js'

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
