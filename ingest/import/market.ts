/**
 * @module
 * The market facts an import binds into its statements. A data.binance.vision file is one market (its
 * name says which); a Tardis.dev file may hold several, so its statements look each row's market up in
 * arrays keyed by `exchange<TAB>symbol` as written in the file (see `marketLookup`).
 */
import type { Params } from '../../engine/store/store.js'
import { ImportError } from './import-error.js'
import { splitTardisSymbol, tardisVenue } from './symbols.js'

export interface MarketParams {
  readonly exchange: string
  readonly market: 'perp' | 'spot'
  readonly symbol: string
  readonly base: string
  readonly quote: string
}

/** Bound parameters of a one-market file; `bases` feeds the coverage filter. */
export function singleMarketParams(m: MarketParams): Params {
  return { ...m, bases: [m.base] }
}

/** Bound parameters of a multi-market file from the `exchange\tsymbol` keys its scan found. */
export function multiMarketParams(label: string, keys: ReadonlySet<string>): Params {
  const mk: string[] = []
  const exchanges: string[] = []
  const markets: string[] = []
  const bases: string[] = []
  const quotes: string[] = []
  for (const key of [...keys].sort()) {
    const [id = '', symbol = ''] = key.split('\t')
    const pair = splitTardisSymbol(symbol)
    if (!pair) throw new ImportError(label, 0, `cannot tell the base and quote assets of symbol ${symbol}`)
    const venue = tardisVenue(id)
    mk.push(key)
    exchanges.push(venue.exchange)
    markets.push(venue.market)
    bases.push(pair.base)
    quotes.push(pair.quote)
  }
  return {
    mk,
    mk_exchange: exchanges,
    mk_market: markets,
    mk_base: bases,
    mk_quote: quotes,
    bases: [...new Set(bases)]
  }
}

/** SQL: the value of per-market array `name` for the row's `c_exchange`, `c_symbol`. */
export function marketLookup(name: 'mk_exchange' | 'mk_market' | 'mk_base' | 'mk_quote'): string {
  return `transform(concat(c_exchange, '\\t', c_symbol), {mk:Array(String)}, {${name}:Array(String)}, '')`
}
