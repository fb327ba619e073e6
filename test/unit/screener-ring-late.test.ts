/**
 * The screener book's hourly rings and records older than the ring (a late import offered to the live
 * state): they must not clear the current hours that share their slot.
 */
import { describe, expect, it } from 'vitest'
import { ScreenerBook } from '../../engine/live/screener-book.js'
import type { OpenInterestRecord, TradeRecord } from '../../engine/records/types.js'

const HOUR = 3_600_000
const NOW = Date.UTC(2026, 10, 22, 12, 30)

const trade = (ts: number, id: string): TradeRecord => ({
  kind: 'trade',
  ts,
  exchange: 'binance',
  market: 'perp',
  symbol: 'BTCUSDT',
  base: 'BTC',
  quote: 'USDT',
  side: 'buy',
  price: 100,
  qty: 2,
  trade_id: id
})
const oi = (ts: number, usd: number): OpenInterestRecord => ({
  kind: 'open_interest',
  ts,
  exchange: 'binance',
  symbol: 'BTCUSDT',
  base: 'BTC',
  oi_base: 1,
  oi_usd: usd
})

describe('screener rings and old records', () => {
  it('keeps the current hour when a record 49 hours older (same slot) arrives late', () => {
    const book = new ScreenerBook()
    book.apply([oi(NOW - 24 * HOUR, 1000), trade(NOW - 24 * HOUR, 'a'), oi(NOW, 1100), trade(NOW, 'b')])
    const before = book.rowOf('binance', 'BTCUSDT', NOW)!
    expect(before.volume_24h_usd).toBe(200)
    expect(before.open_interest_change_24h).toBeCloseTo(10, 9)
    // event times 49 and 73 hours ago: the slots of the current hour and of 24 h ago
    book.apply([
      trade(NOW - 49 * HOUR, 'c'),
      oi(NOW - 49 * HOUR, 5),
      oi(NOW - 73 * HOUR, 7),
      trade(NOW - 73 * HOUR, 'd')
    ])
    expect(book.rowOf('binance', 'BTCUSDT', NOW)).toEqual(before)
  })
})
