import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatExpiryCode, parseExpiryCode, parseInstrument } from '../../engine/options/instrument.js'

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']

describe('parseInstrument', () => {
  it.each([
    ['BTC-5JAN25-100000-C', 'BTC', '5JAN25', Date.UTC(2025, 0, 5, 8), 100000, 'call'],
    ['BTC-27DEC24-95000-P', 'BTC', '27DEC24', Date.UTC(2024, 11, 27, 8), 95000, 'put'],
    ['ETH-28MAR25-3500-C', 'ETH', '28MAR25', Date.UTC(2025, 2, 28, 8), 3500, 'call'],
    ['BTC-9JUN20-9875-P', 'BTC', '9JUN20', Date.UTC(2020, 5, 9, 8), 9875, 'put'],
    ['BTC-1SEP26-80000-C', 'BTC', '1SEP26', Date.UTC(2026, 8, 1, 8), 80000, 'call'],
    ['BTC-26DEC25-1000000-C', 'BTC', '26DEC25', Date.UTC(2025, 11, 26, 8), 1_000_000, 'call'],
    ['XRP_USDC-30JUN23-0d625-C', 'XRP_USDC', '30JUN23', Date.UTC(2023, 5, 30, 8), 0.625, 'call'],
    ['SOL_USDC-7FEB25-212d5-P', 'SOL_USDC', '7FEB25', Date.UTC(2025, 1, 7, 8), 212.5, 'put'],
    ['BTC_USDC-14MAR25-84000-P', 'BTC_USDC', '14MAR25', Date.UTC(2025, 2, 14, 8), 84000, 'put'],
    ['ETH-29FEB24-3000-C', 'ETH', '29FEB24', Date.UTC(2024, 1, 29, 8), 3000, 'call'] // leap day
  ] as const)('%s', (name, currency, expiryCode, expiryMs, strike, type) => {
    expect(parseInstrument(name)).toEqual({ currency, expiryCode, expiryMs, strike, type })
  })

  it('knows all twelve months, with one- and two-digit days, at 08:00 UTC', () => {
    MONTHS.forEach((mmm, month) => {
      for (const day of [1, 9, 10, 28]) {
        const parsed = parseInstrument(`BTC-${day}${mmm}25-60000-P`)
        expect(parsed?.expiryMs, `${day}${mmm}25`).toBe(Date.UTC(2025, month, day, 8))
        expect(parsed?.expiryCode).toBe(`${day}${mmm}25`)
      }
    })
  })

  it.each([
    '',
    'BTC-PERPETUAL',
    'BTC-27DEC24', // a future, not an option
    'BTC-27DEC24-95000', // no type
    'BTC-27DEC24-95000-X',
    'BTC-27DEC24--C', // empty strike
    'BTC-27DEC24-0-C', // zero strike
    'BTC-27DEC24-0d0-C',
    'BTC-27DEC24--100-C', // negative strike
    'BTC-27DEC24-95000.5-C', // Deribit writes `d`, never `.`
    'BTC-27DEC24-95000d-C',
    'BTC-27DEC24-d5-C',
    'BTC-27DEC24-1e5-C',
    'BTC-27DEC24-95000-C-1', // extra part
    'BTC-27DEC24-95000-C ',
    ' BTC-27DEC24-95000-C',
    'X-BTC-27DEC24-95000-C',
    'btc-27DEC24-95000-C', // lowercase
    'BTC-27dec24-95000-C',
    'BTC-27DEC24-95000-c',
    'BTC-27DEX24-95000-C', // bad month
    'BTC-0JAN25-95000-C', // day 0
    'BTC-05JAN25-95000-C', // Deribit never zero-pads the day
    'BTC-32JAN25-95000-C',
    'BTC-30FEB25-95000-C',
    'BTC-29FEB25-95000-C', // 2025 is not a leap year
    'BTC-31APR25-95000-C',
    'BTC-31JUN25-95000-C',
    'BTC-31SEP25-95000-C',
    'BTC-31NOV25-95000-C',
    'BTC-100JAN25-95000-C',
    'BTC-5JAN2025-95000-C',
    'BTC-5JAN5-95000-C',
    '-5JAN25-95000-C', // no currency
    'BTC_-5JAN25-95000-C',
    'BTC-5JAN25-95000-C-', // trailing separator
    'BTC-5JAN25-95000-CP'
  ])('rejects %j', (name) => {
    expect(parseInstrument(name)).toBeNull()
  })
})

describe('formatExpiryCode', () => {
  it('writes the day without a leading zero', () => {
    expect(formatExpiryCode(Date.UTC(2025, 0, 5, 8))).toBe('5JAN25')
    expect(formatExpiryCode(Date.UTC(2024, 11, 27, 8))).toBe('27DEC24')
    expect(formatExpiryCode(Date.UTC(2030, 9, 1, 8))).toBe('1OCT30')
    expect(formatExpiryCode(Date.UTC(2005, 4, 3, 8))).toBe('3MAY05')
  })

  it('rejects years a two-digit code cannot name', () => {
    expect(() => formatExpiryCode(Date.UTC(1999, 11, 31, 8))).toThrow(RangeError)
    expect(() => formatExpiryCode(Date.UTC(2100, 0, 1, 8))).toThrow(RangeError)
    expect(() => formatExpiryCode(Number.NaN)).toThrow(RangeError)
  })

  it('round-trips with parseExpiryCode and parseInstrument for every 08:00 UTC date of 2020..2035', () => {
    const DAY_MS = 86_400_000
    const first = Date.UTC(2020, 0, 1) / DAY_MS
    const last = Date.UTC(2035, 11, 31) / DAY_MS
    fc.assert(
      fc.property(fc.integer({ min: first, max: last }), fc.constantFrom('C', 'P'), (day, cp) => {
        const ms = day * DAY_MS + 8 * 3_600_000
        const code = formatExpiryCode(ms)
        expect(code).toMatch(/^[1-9]\d?[A-Z]{3}\d{2}$/)
        expect(parseExpiryCode(code)).toBe(ms)
        const parsed = parseInstrument(`ETH-${code}-2500-${cp}`)
        expect(parsed?.expiryMs).toBe(ms)
        expect(parsed?.expiryCode).toBe(code)
      }),
      { seed: 20250105, numRuns: 2000 }
    )
  })
})
