/**
 * The live screener answers' freshness rule (engine/live/screener-answers.ts), on a clock the test moves:
 * an answer is reused while the book is unchanged within its UTC hour, recomputed at the first request after
 * a change, then held for SCREENER_REFRESH_MS through further changes; a new hour and a rebuild make it
 * stale at once; what it serves equals a fresh computation of the book; the cache stays within its limits.
 */
import { describe, expect, it } from 'vitest'
import { SCREENER_REFRESH_MS, ScreenerAnswers, type ScreenerAnswer } from '../../engine/live/screener-answers.js'
import { ScreenerBook } from '../../engine/live/screener-book.js'
import { screenerAnswer, type ScreenerSelection } from '../../engine/live/screener-select.js'
import type { FundingRecord, NormalizedRecord, TradeRecord } from '../../engine/records/types.js'

const HOUR = 3_600_000
/** 12:30 UTC: half an hour from either hour edge */
const T0 = Date.UTC(2026, 10, 22, 12, 30)

const ALL: ScreenerSelection = {
  base: null,
  exchange: null,
  require: null,
  sort: 'volume_24h_usd',
  desc: true,
  limit: 1000
}

let ids = 0
function trade(exchange: string, base: string, ts: number, price: number, qty: number, market = 'perp'): TradeRecord {
  return {
    kind: 'trade',
    ts,
    exchange,
    market: market as 'perp' | 'spot',
    symbol: `${base}USDT`,
    base,
    quote: 'USDT',
    side: 'buy',
    price,
    qty,
    trade_id: String(++ids)
  }
}

function funding(exchange: string, base: string, ts: number, rate: number): FundingRecord {
  return { kind: 'funding', ts, exchange, symbol: `${base}USDT`, base, funding_rate: rate, interval_hours: 8 }
}

/** A book with three markets, 25 h of trades (so the 24 h windows hold data on both sides), and funding. */
function setup(): { book: ScreenerBook; answers: ScreenerAnswers; clock: { now: number } } {
  const book = new ScreenerBook()
  const records: NormalizedRecord[] = []
  for (let h = 30; h >= 0; h--) {
    records.push(trade('binance', 'BTC', T0 - h * HOUR, 100 + h, 1 + (h % 5)))
    records.push(trade('okx', 'BTC', T0 - h * HOUR, 101 + h, 2))
    records.push(trade('binance', 'ETH', T0 - h * HOUR, 10 + h, 7))
  }
  records.push(funding('binance', 'BTC', T0 - 60_000, 0.0001), funding('okx', 'BTC', T0 - 60_000, -0.0002))
  book.apply(records)
  const clock = { now: T0 }
  return { book, answers: new ScreenerAnswers(book, () => clock.now), clock }
}

const fresh = (book: ScreenerBook, nowMs: number, s: ScreenerSelection): Buffer =>
  Buffer.from(JSON.stringify(screenerAnswer(book, nowMs, s)))

const volumeOf = (a: ScreenerAnswer, exchange: string, symbol: string): number =>
  (
    JSON.parse(a.bytes.toString()) as { rows: { exchange: string; symbol: string; volume_24h_usd: number }[] }
  ).rows.find((r) => r.exchange === exchange && r.symbol === symbol)!.volume_24h_usd

describe('screener answers: bytes', () => {
  it('serve bytes equal to a fresh computation, for each kind of selection', () => {
    const { book, answers } = setup()
    const selections: ScreenerSelection[] = [
      ALL,
      { ...ALL, base: 'BTC' },
      { ...ALL, exchange: 'okx' },
      { ...ALL, require: 'funding_rate', sort: 'funding_rate', desc: false },
      { ...ALL, sort: 'symbol', limit: 2 },
      { ...ALL, exchange: 'binance', sort: 'volume_change_24h', limit: 1 }
    ]
    for (const s of selections) {
      const a = answers.get(s)
      expect(a.bytes.equals(fresh(book, T0, s)), JSON.stringify(s)).toBe(true)
      expect(answers.get(s)).toBe(a) // a hit: the same answer object
    }
    expect(answers.computed).toBe(selections.length)
    // the selections answer differently (the test would not see a key mix-up otherwise)
    expect(new Set(selections.map((s) => answers.get(s).bytes.toString())).size).toBe(selections.length)
  })
})

describe('screener answers: freshness rule', () => {
  it('reuse an answer while the book is unchanged, at any age within its hour', () => {
    const { answers, clock } = setup()
    const a = answers.get(ALL)
    clock.now = Math.floor(T0 / HOUR) * HOUR + HOUR - 1 // the last ms of the hour
    expect(answers.get(ALL)).toBe(a)
    expect(answers.computed).toBe(1)
  })

  it('recompute at the first request in a new UTC hour, unchanged book or not (the 24 h windows moved)', () => {
    const { book, answers, clock } = setup()
    const a = answers.get(ALL)
    clock.now = Math.floor(T0 / HOUR) * HOUR + HOUR
    const b = answers.get(ALL)
    expect(b).not.toBe(a)
    expect(b.bytes.equals(fresh(book, clock.now, ALL))).toBe(true)
    expect(b.bytes.equals(a.bytes)).toBe(false) // an hour of trades left the window
  })

  it('show a change after a quiet spell at once, then hold the recomputed answer for SCREENER_REFRESH_MS', () => {
    const { book, answers, clock } = setup()
    const a = answers.get(ALL)
    const v0 = volumeOf(a, 'binance', 'ETHUSDT')
    // a record, then a request 1 ms later: the first answer is not held, so the change shows at once
    book.apply([trade('binance', 'ETH', T0, 10, 100)])
    clock.now += 1
    const b = answers.get(ALL)
    expect(volumeOf(b, 'binance', 'ETHUSDT')).toBe(v0 + 1000)
    expect(b.bytes.equals(fresh(book, clock.now, ALL))).toBe(true)
    // more records: the recomputed answer is held until it is SCREENER_REFRESH_MS old
    book.apply([trade('binance', 'ETH', T0, 10, 100)])
    clock.now += SCREENER_REFRESH_MS - 1
    book.apply([trade('binance', 'ETH', T0, 10, 100)])
    expect(answers.get(ALL)).toBe(b)
    clock.now += 1
    const c = answers.get(ALL)
    expect(volumeOf(c, 'binance', 'ETHUSDT')).toBe(v0 + 3000) // every record applied by then
    expect(c.bytes.equals(fresh(book, clock.now, ALL))).toBe(true)
    expect(answers.computed).toBe(3)
  })

  it('recompute at most once per SCREENER_REFRESH_MS under a feed that changes the book every 10 ms', () => {
    const { book, answers, clock } = setup()
    answers.get(ALL)
    answers.get(ALL)
    const start = answers.computed
    // two seconds of a live feed, read every 10 ms
    for (let t = 0; t < 2_000; t += 10) {
      book.apply([trade('okx', 'BTC', T0 + t, 150, 1)])
      clock.now = T0 + t + 1
      const a = answers.get(ALL)
      // never older than the bound while the book changes
      expect(clock.now - a.at).toBeLessThan(SCREENER_REFRESH_MS)
    }
    expect(answers.computed - start).toBeLessThanOrEqual(Math.ceil(2_000 / SCREENER_REFRESH_MS) + 1)
    expect(answers.computed - start).toBeGreaterThanOrEqual(2_000 / SCREENER_REFRESH_MS)
  })

  it('leave answers cached for batches without a screener record (spot trades, option quotes)', () => {
    const { book, answers, clock } = setup()
    const a = answers.get(ALL)
    book.apply([trade('binance', 'BTC', T0, 100, 5, 'spot')])
    book.apply([
      {
        kind: 'option_quote',
        ts: T0,
        exchange: 'deribit',
        instrument: 'BTC-27NOV26-100000-C',
        underlying_price: 100_000,
        mark_price: 0.01,
        open_interest: 1,
        volume_24h: 1,
        mark_iv: 50
      }
    ])
    clock.now += 1
    expect(answers.get(ALL)).toBe(a)
  })

  it('a rebuild (clear and load) makes every answer stale at once, held or not', () => {
    const { book, answers, clock } = setup()
    answers.get(ALL)
    book.apply([trade('binance', 'ETH', T0, 10, 1)])
    clock.now += 1
    const held = answers.get(ALL)
    expect(held.held).toBe(true)
    book.clear()
    book.loadHour('binance', 'SOLUSDT', 'SOL', Math.floor(T0 / HOUR), 5_000, 1_234, 150)
    clock.now += 1
    const after = answers.get(ALL)
    expect(after).not.toBe(held)
    expect(after.bytes.equals(fresh(book, clock.now, ALL))).toBe(true)
    expect(JSON.parse(after.bytes.toString()).rows.map((r: { symbol: string }) => r.symbol)).toEqual(['SOLUSDT'])
  })
})

describe('screener answers: bounds', () => {
  it('drop the least recently used beyond the answer limit, counted', () => {
    const { book } = setup()
    const clock = { now: T0 }
    const answers = new ScreenerAnswers(book, () => clock.now, { maxAnswers: 2 })
    const one = { ...ALL, limit: 1 }
    const two = { ...ALL, limit: 2 }
    const three = { ...ALL, limit: 3 }
    const a1 = answers.get(one)
    answers.get(two)
    expect(answers.get(one)).toBe(a1) // used: `two` is now the least recently used
    answers.get(three)
    expect(answers.evictions).toBe(1)
    expect(answers.size.answers).toBe(2)
    expect(answers.get(one)).toBe(a1)
    const computed = answers.computed
    answers.get(two) // dropped: computed again
    expect(answers.computed).toBe(computed + 1)
    expect(answers.evictions).toBe(2)
  })

  it('stay within the byte budget, keeping the answer being served even when it alone exceeds it', () => {
    const { book } = setup()
    const clock = { now: T0 }
    const top = { ...ALL, limit: 1 }
    const bottom = { ...top, desc: false }
    const budget = fresh(book, T0, top).length + fresh(book, T0, bottom).length
    const answers = new ScreenerAnswers(book, () => clock.now, { maxBytes: budget })
    answers.get(top)
    answers.get(bottom)
    expect(answers.size).toEqual({ answers: 2, bytes: budget })
    const full = answers.get(ALL) // larger than the budget alone
    expect(answers.size.answers).toBe(1)
    expect(answers.size.bytes).toBe(full.bytes.length)
    expect(answers.evictions).toBe(2)
    expect(answers.get(ALL)).toBe(full)
  })

  it('refuse limits below 1', () => {
    expect(() => new ScreenerAnswers(new ScreenerBook(), Date.now, { maxAnswers: 0 })).toThrow(RangeError)
  })
})
