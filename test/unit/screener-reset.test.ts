/**
 * `ScreenerBook.reset` (the book a run of point-in-time steps fills anew at each step): after it, the book
 * answers as a new book given the same loads, whatever the earlier loads left in the markets it keeps.
 */
import { describe, expect, it } from 'vitest'
import { ScreenerBook } from '../../engine/live/screener-book.js'
import type { NormalizedRecord } from '../../engine/records/types.js'

const HOUR_MS = 3_600_000
const NOW = Date.UTC(2026, 10, 22, 12, 30)
const NOW_HOUR = Math.floor(NOW / HOUR_MS)

const latest = (exchange: string, symbol: string, rate: number, ts = NOW - 1000): NormalizedRecord[] => [
  { kind: 'funding', ts, exchange, symbol, base: 'BTC', funding_rate: rate, interval_hours: 8 },
  { kind: 'long_short', ts, exchange, symbol, base: 'BTC', long_short_ratio: 1 + rate },
  { kind: 'open_interest', ts, exchange, symbol, base: 'BTC', oi_base: 0, oi_usd: 2e9 }
]

/** Loads of one step: the hour 24 h back and the current hour of each market, then the newest readings. */
function load(book: ScreenerBook, markets: readonly [string, string][], price: number): void {
  for (const [exchange, symbol] of markets) {
    book.loadHour(exchange, symbol, 'BTC', NOW_HOUR - 24, 1e9, 0, price)
    book.loadHour(exchange, symbol, 'BTC', NOW_HOUR, null, 0, price * 1.1)
  }
  book.loadLatest(markets.flatMap(([e, s]) => latest(e, s, 0.0001)))
}

describe('ScreenerBook.reset', () => {
  it('answers as a new book with the same loads', () => {
    const kept = new ScreenerBook()
    // an earlier step: other hours, a market the next step does not load, newer readings (kept if not emptied)
    kept.loadHour('binance', 'BTCUSDT', 'BTC', NOW_HOUR - 30, 5e8, 7, 90)
    kept.loadHour('binance', 'BTCUSDT', 'BTC', NOW_HOUR - 24, 4e8, 7, 80)
    kept.loadHour('bybit', 'BTCUSDT', 'BTC', NOW_HOUR - 1, 3e8, 7, 70)
    kept.loadLatest([...latest('binance', 'BTCUSDT', 0.0009, NOW), ...latest('bybit', 'BTCUSDT', 0.0008, NOW)])
    kept.reset()
    const markets: [string, string][] = [
      ['okx', 'BTC-USDT-SWAP'],
      ['binance', 'BTCUSDT']
    ]
    load(kept, markets, 100)
    const fresh = new ScreenerBook()
    load(fresh, markets, 100)
    expect(kept.baseStats('BTC', NOW)).toEqual(fresh.baseStats('BTC', NOW))
    expect(kept.rows(NOW)).toEqual(fresh.rows(NOW))
    // nothing loaded after a reset: no market at all
    kept.reset()
    expect(kept.rows(NOW)).toEqual([])
    expect(kept.baseStats('BTC', NOW).primary).toBeNull()
  })
})
