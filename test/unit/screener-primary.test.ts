/**
 * The primary market of a base (confirm's derivatives inputs): Binance, else Bybit, else OKX, then by
 * symbol when one venue lists the base twice, whichever order the records arrive or are loaded in.
 */
import { describe, expect, it } from 'vitest'
import { ScreenerBook } from '../../engine/live/screener-book.js'
import type { FundingRecord } from '../../engine/records/types.js'

const NOW = Date.UTC(2026, 10, 22, 12)

function funding(exchange: string, symbol: string, rate: number): FundingRecord {
  return { kind: 'funding', ts: NOW - 1000, exchange, symbol, base: 'ORDI', funding_rate: rate, interval_hours: 8 }
}

const OKX = funding('okx', 'ORDI-USDT-SWAP', 0.0003)
const BYBIT = funding('bybit', 'ORDIUSDT', 0.0002)
const BINANCE = funding('binance', 'ORDIUSDT', 0.0001)

describe('ScreenerBook primary market', () => {
  it('prefers Bybit to OKX when Binance does not list the base', () => {
    for (const order of [
      [OKX, BYBIT],
      [BYBIT, OKX]
    ]) {
      const book = new ScreenerBook()
      book.apply(order)
      const s = book.baseStats('ORDI', NOW)
      expect(s.primary).toEqual({ exchange: 'bybit', symbol: 'ORDIUSDT' })
      expect(s.fundingRate).toBe(0.0002)
    }
  })

  it('prefers Binance to both', () => {
    const book = new ScreenerBook()
    book.apply([OKX, BYBIT, BINANCE])
    expect(book.baseStats('ORDI', NOW).primary).toEqual({ exchange: 'binance', symbol: 'ORDIUSDT' })
    expect(book.baseStats('ORDI', NOW).fundingRate).toBe(0.0001)
  })

  it('chooses between two markets of one venue by symbol, in any order', () => {
    const usdc = funding('binance', 'ORDIUSDC', 0.0004)
    for (const order of [
      [BINANCE, usdc],
      [usdc, BINANCE]
    ]) {
      const book = new ScreenerBook()
      book.apply(order)
      expect(book.baseStats('ORDI', NOW).primary).toEqual({ exchange: 'binance', symbol: 'ORDIUSDC' })
      expect(book.baseStats('ORDI', NOW).fundingRate).toBe(0.0004)
      // loaded from the store (the as_of and series paths) in either order: the same primary
      const loaded = new ScreenerBook()
      for (const r of order) loaded.loadHour(r.exchange, r.symbol, 'ORDI', Math.floor(NOW / 3_600_000), 1e6, 0, 5)
      loaded.loadLatest(order)
      expect(loaded.baseStats('ORDI', NOW).primary).toEqual({ exchange: 'binance', symbol: 'ORDIUSDC' })
    }
  })
})
