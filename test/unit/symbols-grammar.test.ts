/**
 * The published symbol patterns (engine/symbols/grammar.ts) admit exactly the texts the reader reads
 * (`symbolOf`; written without spaces around, which it trims), and the venue pattern exactly those `venueOf` also takes without an `exchange`: drawn from
 * the grammar's own pieces (quotes, prefixes, markers, separators) so most draws are near a form.
 * Fixed seed; rerun a failure with GRAMMAR_SEED=<seed printed>.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../engine/errors.js'
import {
  CROSS_QUOTES,
  PERP_SUFFIXES,
  SYMBOL_MAX_LENGTH,
  SYMBOL_PATTERN,
  TRADINGVIEW_VENUES,
  USD_QUOTES,
  VENUE_SYMBOL_PATTERN
} from '../../engine/symbols/grammar.js'
import { symbolOf, venueOf } from '../../engine/symbols/resolve.js'

const SEED = Number(process.env['GRAMMAR_SEED'] ?? 7)

/** Whether the reader reads `s` as a parameter sends it (no spaces around: the reader trims, the schema refuses them). */
function reads(s: string): boolean {
  if (s !== s.trim()) return false
  try {
    symbolOf(s)
    return true
  } catch (e) {
    if (e instanceof ApiError) return false
    throw e
  }
}

function readsWithVenue(s: string): boolean {
  if (!reads(s)) return false
  try {
    venueOf(symbolOf(s), undefined)
    return true
  } catch (e) {
    if (e instanceof ApiError) return false
    throw e
  }
}

const pieces = [
  ...USD_QUOTES,
  ...CROSS_QUOTES,
  ...Object.keys(TRADINGVIEW_VENUES).map((p) => `${p}:`),
  ...PERP_SUFFIXES,
  'PERP',
  'BTC',
  '1000PEPE',
  'A',
  '9',
  '/',
  ':',
  '-',
  '_',
  '.',
  'x',
  'é',
  ' '
]
const piece = fc.oneof(
  fc.constantFrom(...pieces),
  fc.constantFrom(...pieces).map((p) => p.toLowerCase()),
  fc.string({ unit: fc.constantFrom(...'AZaz09/:_.-'), minLength: 1, maxLength: 22 })
)
const text = fc.array(piece, { minLength: 1, maxLength: 6 }).map((a) => a.join(''))

describe('symbol patterns', () => {
  const symbol = new RegExp(SYMBOL_PATTERN, 'u')
  const venue = new RegExp(VENUE_SYMBOL_PATTERN, 'u')

  it.each([
    'BTC',
    'btc',
    'BTCUSDT',
    'BTCUSDTPERP',
    'BTC/USDTPERP',
    'btc-usdtperp',
    'BTC/USDT',
    'BTC/USDT:USDT',
    'BTC-USDT-SWAP',
    'BTC_USDT',
    'BTC-PERP',
    'BINANCE:BTCUSDT.P',
    'okx:btc-usdt-swap',
    '1000PEPEUSDT',
    'ETHBTC',
    'x'.repeat(20),
    `${'X'.repeat(16)}USDTPERP`
  ])('admits %s, which the reader reads', (s) => {
    expect(reads(s)).toBe(true)
    expect(s).toMatch(symbol)
  })

  it.each([
    '',
    'A/B/C',
    'BTC/USDTPERPX',
    'BTC:USDT',
    'ETH/BTC',
    'BTC-USDT-X',
    'x'.repeat(21),
    'BTC..P',
    '-BTC',
    'BTC/USDT:'
  ])('refuses %j, which the reader refuses', (s) => {
    expect(reads(s)).toBe(false)
    expect(s).not.toMatch(symbol)
  })

  it('the venue pattern takes the prefixes of served venues only', () => {
    expect('BYBIT:BTCUSDT.P').toMatch(venue)
    expect('COINBASE:BTCUSD').toMatch(symbol)
    expect('COINBASE:BTCUSD').not.toMatch(venue)
  })

  it('admit exactly what the reader reads (generated texts)', () => {
    process.stdout.write(`symbol grammar: seed ${SEED} (rerun with GRAMMAR_SEED=${SEED})\n`)
    fc.assert(
      fc.property(text, (s) => {
        const fits = s.length <= SYMBOL_MAX_LENGTH
        expect(fits && symbol.test(s), `SYMBOL_PATTERN on ${JSON.stringify(s)}`).toBe(reads(s))
        expect(fits && venue.test(s), `VENUE_SYMBOL_PATTERN on ${JSON.stringify(s)}`).toBe(readsWithVenue(s))
      }),
      { seed: SEED, numRuns: 20_000 }
    )
  })
})
