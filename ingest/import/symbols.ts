/**
 * @module
 * Base and quote assets from exchange-native symbols, and Tidewatch exchange names from Tardis.dev
 * exchange ids. Candle tables key on (base, exchange, symbol) without the market type, so spot markets get
 * their own exchange name (`binance-spot`) and never mix with the perpetual of the same symbol.
 */

/** Quote assets recognised at the end of a concatenated symbol (BTCUSDT), longest first. */
const QUOTES = ['FDUSD', 'USDT', 'USDC', 'BUSD', 'TUSD', 'USD', 'EUR', 'TRY', 'BTC', 'ETH', 'BNB']

export interface Pair {
  readonly base: string
  readonly quote: string
}

/** `BTCUSDT` → BTC/USDT, `1000PEPEUSDC` → 1000PEPE/USDC, `BTCUSD_240329` (delivery) → BTC/USD; null if unknown. */
export function splitConcatenated(symbol: string): Pair | null {
  const s = symbol
    .toUpperCase()
    .replace(/_\d{6}$/, '')
    .replace(/_PERP$/, '')
  for (const q of QUOTES) if (s.length > q.length && s.endsWith(q)) return { base: s.slice(0, -q.length), quote: q }
  return null
}

/**
 * Tardis symbols: `BTC-PERPETUAL` and `BTC-27DEC24` (Deribit inverse: quote USD), `ETH_USDC-PERPETUAL`
 * (Deribit linear), `BTC-USDT-SWAP` / `BTC-USDT` (OKX), `BTCUSDT` (Binance, Bybit).
 */
export function splitTardisSymbol(symbol: string): Pair | null {
  const s = symbol.toUpperCase()
  if (s.includes('-')) {
    const [first = '', second = ''] = s.split('-')
    if (first.includes('_')) {
      const [base = '', quote = ''] = first.split('_')
      return base && quote ? { base, quote } : null
    }
    if (!first) return null
    return { base: first, quote: QUOTES.includes(second) ? second : 'USD' }
  }
  if (s.includes('_') || s.includes('/')) {
    const [base = '', quote = ''] = s.split(/[_/]/)
    return base && quote ? { base, quote } : null
  }
  return splitConcatenated(s)
}

export interface Venue {
  readonly exchange: string
  readonly market: 'perp' | 'spot'
}

/** Tardis exchange ids Tidewatch also ingests live, under the names it uses there. */
const TARDIS_VENUES: Readonly<Record<string, Venue>> = {
  'binance-futures': { exchange: 'binance', market: 'perp' },
  binance: { exchange: 'binance-spot', market: 'spot' },
  bybit: { exchange: 'bybit', market: 'perp' },
  'bybit-spot': { exchange: 'bybit-spot', market: 'spot' },
  'okex-swap': { exchange: 'okx', market: 'perp' },
  okex: { exchange: 'okx-spot', market: 'spot' },
  deribit: { exchange: 'deribit', market: 'perp' }
}

/** Other ids keep their name; they count as perpetual/futures venues when the id says so. */
export function tardisVenue(id: string): Venue {
  return (
    TARDIS_VENUES[id] ?? {
      exchange: id,
      market: /futures|swap|perp|deribit|bitmex|delivery/.test(id) ? 'perp' : 'spot'
    }
  )
}
