import { describe, expect, it } from 'vitest'
import { ApiError } from '../../engine/errors.js'
import { editDistance, nearestBases } from '../../engine/symbols/nearest.js'
import {
  parseSymbol,
  planBase,
  resolveBase,
  resolveSymbol,
  symbolOf,
  venueOf,
  SYMBOL_PATTERN,
  type ParsedSymbol
} from '../../engine/symbols/resolve.js'

const KNOWN = new Set(['BTC', 'ETH', 'SOL', 'PEPE', 'SHIB', '1INCH', 'WBTC', 'STETH', 'USDC', 'DOGE', 'BCH'])

/** The error a call throws (fails the test when it does not throw). */
function thrown(f: () => unknown): ApiError {
  try {
    f()
  } catch (e) {
    if (e instanceof ApiError) return e
    throw e
  }
  throw new Error('expected an ApiError')
}

describe('parseSymbol: every accepted form', () => {
  it.each<[string, ParsedSymbol]>([
    ['BTC', { base: 'BTC', quote: null, venue: null }],
    ['btc', { base: 'BTC', quote: null, venue: null }],
    [' Btc ', { base: 'BTC', quote: null, venue: null }],
    ['BTCUSDT', { base: 'BTC', quote: 'USDT', venue: null }],
    ['btcusdt', { base: 'BTC', quote: 'USDT', venue: null }],
    ['BTCUSDC', { base: 'BTC', quote: 'USDC', venue: null }],
    ['BTCUSD', { base: 'BTC', quote: 'USD', venue: null }],
    ['BTCFDUSD', { base: 'BTC', quote: 'FDUSD', venue: null }],
    ['BTCBUSD', { base: 'BTC', quote: 'BUSD', venue: null }],
    ['BTC/USDT', { base: 'BTC', quote: 'USDT', venue: null }],
    ['BTC/USDT:USDT', { base: 'BTC', quote: 'USDT', venue: null }],
    ['btc/usdc:usdc', { base: 'BTC', quote: 'USDC', venue: null }],
    ['BTC-USDT', { base: 'BTC', quote: 'USDT', venue: null }],
    ['BTC-USDT-SWAP', { base: 'BTC', quote: 'USDT', venue: null }],
    ['BTC_USDT', { base: 'BTC', quote: 'USDT', venue: null }],
    ['BTCUSDTPERP', { base: 'BTC', quote: 'USDT', venue: null }],
    ['BTCUSDT_PERP', { base: 'BTC', quote: 'USDT', venue: null }],
    ['BTC-PERP', { base: 'BTC', quote: null, venue: null }],
    ['BTC-PERPETUAL', { base: 'BTC', quote: null, venue: null }],
    ['BTCUSDT.P', { base: 'BTC', quote: 'USDT', venue: null }],
    ['BINANCE:BTCUSDT.P', { base: 'BTC', quote: 'USDT', venue: 'binance' }],
    ['binance:btcusdt.p', { base: 'BTC', quote: 'USDT', venue: 'binance' }],
    ['BINANCE:BTCUSDT', { base: 'BTC', quote: 'USDT', venue: 'binance' }],
    ['BYBIT:BTCUSDT.P', { base: 'BTC', quote: 'USDT', venue: 'bybit' }],
    ['OKX:BTCUSDT.P', { base: 'BTC', quote: 'USDT', venue: 'okx' }],
    ['OKX:BTC-USDT-SWAP', { base: 'BTC', quote: 'USDT', venue: 'okx' }],
    ['COINBASE:BTCUSD', { base: 'BTC', quote: 'USD', venue: 'coinbase' }],
    ['BINANCE:BTC/USDT:USDT', { base: 'BTC', quote: 'USDT', venue: 'binance' }],
    // multiplier names: the plain coin, by the normalizers' rule (prefix 1000/10000/1M, Bybit's suffix form)
    ['1000PEPEUSDT', { base: 'PEPE', quote: 'USDT', venue: null }],
    ['1000PEPE', { base: 'PEPE', quote: null, venue: null }],
    ['BINANCE:1000PEPEUSDT.P', { base: 'PEPE', quote: 'USDT', venue: 'binance' }],
    ['SHIB1000USDT', { base: 'SHIB', quote: 'USDT', venue: null }],
    ['BYBIT:SHIB1000USDT.P', { base: 'SHIB', quote: 'USDT', venue: 'bybit' }],
    ['1MBABYDOGEUSDT', { base: 'BABYDOGE', quote: 'USDT', venue: null }],
    ['1000PEPE/USDT:USDT', { base: 'PEPE', quote: 'USDT', venue: null }],
    // coins that look like something else
    ['1INCHUSDT', { base: '1INCH', quote: 'USDT', venue: null }],
    ['PERP', { base: 'PERP', quote: null, venue: null }],
    ['PERPUSDT', { base: 'PERP', quote: 'USDT', venue: null }],
    ['USDT', { base: 'USDT', quote: null, venue: null }],
    ['BUSD', { base: 'BUSD', quote: null, venue: null }],
    ['USDCUSDT', { base: 'USDC', quote: 'USDT', venue: null }],
    ['WBTC', { base: 'WBTC', quote: null, venue: null }]
  ])('%s', (raw, want) => {
    expect(parseSymbol(raw)).toEqual(want)
  })

  it('returns the same object for the same input (read once, then a lookup)', () => {
    expect(parseSymbol('ETHUSDT')).toBe(parseSymbol('ETHUSDT'))
  })
})

describe('parseSymbol: refusals are 400 invalid_parameter naming the accepted forms', () => {
  it.each([
    ['ETH/BTC', 'BTC'],
    ['ETHBTC', 'BTC'],
    ['eth-btc', 'BTC'],
    ['ETH/BTC:BTC', 'BTC'],
    ['SOLETH', 'ETH'],
    ['BINANCE:ETHBTC', 'BTC'],
    ['ETH/EUR', 'EUR'],
    ['BTC-USDT-240329', null],
    ['BTC/', null],
    ['/USDT', null],
    ['BTC USDT', null],
    ['BTC/USDT/USDT', null],
    ['FOO:BTCUSDT', null],
    ['', null],
    ['X'.repeat(41), null]
  ])('%s', (raw, quote) => {
    const err = parseSymbol(raw, 'symbol')
    expect(err).toBeInstanceOf(ApiError)
    const e = err as ApiError
    expect(e.code).toBe('invalid_parameter')
    expect(e.status).toBe(400)
    expect(e.param).toBe('symbol')
    expect(e.message).toMatch(/^symbol /)
    if (quote !== null) {
      expect(e.message).toContain(`is quoted in ${quote}; only US-dollar quotes are served`)
    }
    // the message names the accepted forms
    for (const form of ['USDT', '/USDT', '/USDT:USDT', '-USDT-SWAP', 'BINANCE:']) expect(e.message).toContain(form)
  })

  it('names the base in the suggested forms of a cross pair', () => {
    expect((parseSymbol('ETH/BTC') as ApiError).message).toBe(
      'symbol ETH/BTC is quoted in BTC; only US-dollar quotes are served (FDUSD, USDT, USDC, BUSD, USD): send ETH, ETHUSDT, ETH/USDT, ETH/USDT:USDT, ETH-USDT-SWAP or BINANCE:ETHUSDT.P'
    )
  })

  it('uses the parameter name it is given', () => {
    expect((parseSymbol('ETH/BTC', 'asset') as ApiError).param).toBe('asset')
    expect((parseSymbol('ETH/BTC', 'asset') as ApiError).message).toMatch(/^asset ETH\/BTC /)
  })

  it('every form it reads fits the parameter pattern published for it', () => {
    const pattern = new RegExp(SYMBOL_PATTERN)
    for (const s of [
      'BINANCE:BTCUSDT.P',
      'BTC-USDT-SWAP',
      'BTC/USDT:USDT',
      '1000PEPEUSDT',
      'BTC_USDT',
      'x'.repeat(20)
    ]) {
      expect(s, s).toMatch(pattern)
    }
    expect('x'.repeat(21)).not.toMatch(pattern)
  })
})

describe('resolveSymbol against known bases', () => {
  it('resolves every form of a known base', () => {
    for (const s of ['BTC', 'btc', 'BTCUSDT', 'BTC/USDT:USDT', 'BTC-USDT-SWAP', 'BINANCE:BTCUSDT.P', 'OKX:BTCUSDT.P']) {
      expect(resolveBase(s, KNOWN), s).toBe('BTC')
    }
    expect(resolveBase('1000PEPEUSDT', KNOWN)).toBe('PEPE')
    expect(resolveBase('SHIB1000USDT', KNOWN)).toBe('SHIB')
    expect(resolveBase('1INCHUSDT', KNOWN)).toBe('1INCH')
  })

  it('keeps the venue of a TradingView prefix', () => {
    expect(resolveSymbol('BYBIT:ETHUSDT.P', KNOWN)).toEqual({ base: 'ETH', quote: 'USDT', venue: 'bybit' })
  })

  it('reads a concatenated name whole when that is the known base (STETH, not ST/ETH)', () => {
    expect(resolveBase('STETH', KNOWN)).toBe('STETH')
    expect(resolveBase('WBTC', KNOWN)).toBe('WBTC')
    expect(resolveBase('USDC', KNOWN)).toBe('USDC')
  })

  it('refuses a cross pair of a known base with 400 invalid_parameter', () => {
    for (const s of ['ETHBTC', 'ETH/BTC', 'SOLETH']) {
      const e = thrown(() => resolveSymbol(s, KNOWN))
      expect(e.code, s).toBe('invalid_parameter')
      expect(e.message, s).toContain('only US-dollar quotes are served')
    }
  })

  it('answers an unknown base with 400 unknown_symbol suggesting the nearest known bases', () => {
    const e = thrown(() => resolveSymbol('BTCX', KNOWN))
    expect(e.code).toBe('unknown_symbol')
    expect(e.param).toBe('symbol')
    expect(e.message).toBe('no perpetual market for BTCX on Binance, Bybit, OKX or Bitget; did you mean BTC?')
    expect(thrown(() => resolveSymbol('BTCXUSDT', KNOWN)).message).toContain(
      'BTCX on Binance, Bybit, OKX or Bitget; did you mean BTC?'
    )
    expect(thrown(() => resolveSymbol('ETHH/USDT', KNOWN)).message).toMatch(/did you mean ETH\?$/)
    expect(thrown(() => resolveSymbol('BHC', KNOWN)).message).toMatch(/did you mean BCH, BTC\?$/)
    expect(thrown(() => resolveSymbol('NOPE', KNOWN)).message).toBe(
      'no perpetual market for NOPE on Binance, Bybit, OKX or Bitget'
    )
    // a cross-quote look-alike whose front is not a known base is just unknown
    expect(thrown(() => resolveSymbol('XYZETH', KNOWN)).code).toBe('unknown_symbol')
  })

  it('takes the parameter name and the unknown message of the caller', () => {
    const e = thrown(() => resolveSymbol('BTCX', KNOWN, 'asset', (b) => `no history for ${b}`))
    expect(e.param).toBe('asset')
    expect(e.message).toBe('no history for BTCX; did you mean BTC?')
  })
})

describe('symbolOf', () => {
  it('reads an ambiguous concatenation whole, and throws refused forms', () => {
    expect(symbolOf('STETH').base).toBe('STETH')
    expect(symbolOf('ETHBTC').base).toBe('ETHBTC')
    expect(symbolOf('BINANCE:BTCUSDT.P')).toEqual({ base: 'BTC', quote: 'USDT', venue: 'binance' })
    expect(thrown(() => symbolOf('ETH/BTC', 'channel')).param).toBe('channel')
  })
})

describe('planBase', () => {
  it('is the base read without knowledge, or the refused name as written', () => {
    expect(planBase('BINANCE:BTCUSDT.P')).toBe('BTC')
    expect(planBase('btc/usdt')).toBe('BTC')
    expect(planBase('STETH')).toBe('STETH')
    expect(planBase('eth/btc')).toBe('ETH/BTC')
  })
})

describe('venueOf', () => {
  const tv = parseSymbol('BINANCE:BTCUSDT.P') as ParsedSymbol
  it('is the exchange parameter, or the TradingView venue', () => {
    expect(venueOf(parseSymbol('BTCUSDT') as ParsedSymbol, undefined)).toBeUndefined()
    expect(venueOf(parseSymbol('BTCUSDT') as ParsedSymbol, 'okx')).toBe('okx')
    expect(venueOf(tv, undefined)).toBe('binance')
    expect(venueOf(tv, 'binance')).toBe('binance')
  })
  it('refuses a prefix disagreeing with exchange, or naming a venue not served', () => {
    const conflict = thrown(() => venueOf(tv, 'okx'))
    expect(conflict).toMatchObject({ code: 'invalid_parameter', param: 'symbol' })
    expect(conflict.message).toBe('symbol names binance but exchange is okx: drop one or make them agree')
    const coinbase = thrown(() => venueOf(parseSymbol('COINBASE:BTCUSD') as ParsedSymbol, undefined))
    expect(coinbase.code).toBe('invalid_parameter')
    expect(coinbase.message).toContain('coinbase, a venue not served')
  })
})

describe('nearest bases', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps', () => {
    expect(editDistance('BTC', 'BTC', 2)).toBe(0)
    expect(editDistance('BTCX', 'BTC', 2)).toBe(1)
    expect(editDistance('BCT', 'BTC', 2)).toBe(1)
    expect(editDistance('ETH', 'BTC', 2)).toBe(2)
    expect(editDistance('DOGECOIN', 'BTC', 2)).toBe(3) // stops past the limit
  })
  it('lists at most three of the nearest, only close ones', () => {
    expect(nearestBases('SOLL', KNOWN)).toEqual(['SOL'])
    expect(nearestBases('ZZZZZZ', KNOWN)).toEqual([])
    expect(nearestBases('BT', ['BTC', 'BAT', 'BTT', 'BT2', 'ETH'])).toEqual(['BAT', 'BT2', 'BTC'])
    expect(nearestBases('BTCX', KNOWN)).toEqual(['BTC']) // not BCH or WBTC, two edits away
  })
})
