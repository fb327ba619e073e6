/**
 * @module
 * The market facts an import binds into its statements. A data.binance.vision file is one market (its
 * name says which); a Tardis.dev file may hold several, so its statements look each row's market up in
 * arrays keyed by `exchange<TAB>symbol` as written in the file (see `marketLookup`).
 */
import type { Params } from '../../engine/store/store.js'
import { DEFAULT_FUNDING_INTERVAL_HOURS, fundingIntervalHours, type FundingSteps } from './funding-interval.js'
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

/**
 * Bound parameters of a multi-market file from the `exchange\tsymbol` keys its scan found, and the funding
 * steps it saw per market (`mk_interval`: each market's funding interval in hours, 8 when not shown).
 */
export function multiMarketParams(
  label: string,
  keys: ReadonlySet<string>,
  funding: ReadonlyMap<string, FundingSteps> = new Map()
): Params {
  const mk: string[] = []
  const intervals: number[] = []
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
    intervals.push(fundingIntervalHours(funding.get(key)) ?? DEFAULT_FUNDING_INTERVAL_HOURS)
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
    mk_interval: intervals,
    bases: [...new Set(bases)]
  }
}

/** SQL: the funding interval (hours, UInt8) bound for the row's `c_exchange`, `c_symbol`. */
export function fundingIntervalLookup(): string {
  return `transform(concat(c_exchange, '\\t', c_symbol), {mk:Array(String)}, {mk_interval:Array(UInt8)}, toUInt8(${DEFAULT_FUNDING_INTERVAL_HOURS}))`
}

/** Markets whose funding interval the file did not show (fewer than two distinct funding times), sorted. */
export function marketsWithoutFundingInterval(funding: ReadonlyMap<string, FundingSteps>): string[] {
  return [...funding]
    .filter(([, steps]) => fundingIntervalHours(steps) === null)
    .map(([key]) => key.replace('\t', ' '))
    .sort()
}

/** SQL: the value of per-market array `name` for the row's `c_exchange`, `c_symbol`. */
export function marketLookup(name: 'mk_exchange' | 'mk_market' | 'mk_base' | 'mk_quote'): string {
  return `transform(concat(c_exchange, '\\t', c_symbol), {mk:Array(String)}, {${name}:Array(String)}, '')`
}
