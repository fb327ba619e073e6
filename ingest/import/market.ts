/**
 * @module
 * The market facts an import binds into its statements. A data.binance.vision file is one market (its
 * name says which); a Tardis.dev file may hold several, so its statements look each row's market up in
 * arrays keyed by `exchange<TAB>symbol` as written in the file (see `marketLookup`).
 * Invariant: `base` is the plain coin, and the statements divide the file's prices by the market's
 * multiplier and multiply its sizes by it (`1000PEPEUSDT`: base PEPE, price / 1000, size × 1000), so imported
 * rows key and scale like the live feed's; `bases` (the coverage filter) holds those coins.
 */
import type { Params } from '../../engine/store/store.js'
import { DEFAULT_FUNDING_INTERVAL_HOURS } from '../../engine/records/types.js'
import { fundingIntervalHours, type FundingSteps } from './funding-interval.js'
import { ImportError } from './import-error.js'
import { sizesInContracts, splitTardisSymbol, tardisCoin, tardisVenue } from './symbols.js'

export interface MarketParams {
  readonly exchange: string
  readonly market: 'perp' | 'spot'
  readonly symbol: string
  /** the plain coin (`PEPE` for `1000PEPEUSDT`) */
  readonly base: string
  readonly quote: string
  /** coins per unit of the file's prices and sizes: 1000 for `1000PEPEUSDT`, 1 for other markets (bound `{mult:Float64}`) */
  readonly mult: number
}

/** Bound parameters of a one-market file; `bases` feeds the coverage filter. */
export function singleMarketParams(m: MarketParams): Params {
  return { ...m, bases: [m.base] }
}

/**
 * Bound parameters of a multi-market file from the `exchange\tsymbol` keys its scan found, and the funding
 * steps it saw per market (`mk_interval`: each market's funding interval in hours, 8 when not shown).
 * `mk_base` is the plain coin and `mk_mult` its multiplier (`tardisCoin`); `mk_contracts` is 1 for markets
 * whose sizes are contracts of a value the file does not give (`sizesInContracts`).
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
  const mults: number[] = []
  const contracts: number[] = []
  for (const key of [...keys].sort()) {
    const [id = '', symbol = ''] = key.split('\t')
    const pair = splitTardisSymbol(symbol)
    if (!pair) throw new ImportError(label, 0, `cannot tell the base and quote assets of symbol ${symbol}`)
    const venue = tardisVenue(id)
    mk.push(key)
    intervals.push(fundingIntervalHours(funding.get(key)) ?? DEFAULT_FUNDING_INTERVAL_HOURS)
    exchanges.push(venue.exchange)
    markets.push(venue.market)
    const coin = tardisCoin(id, pair.base)
    bases.push(coin.base)
    quotes.push(pair.quote)
    mults.push(coin.multiplier)
    contracts.push(sizesInContracts(id) ? 1 : 0)
  }
  return {
    mk,
    mk_exchange: exchanges,
    mk_market: markets,
    mk_base: bases,
    mk_quote: quotes,
    mk_interval: intervals,
    mk_mult: mults,
    mk_contracts: contracts,
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

/** SQL: the multiplier (Float64, coins per unit of the file's prices and sizes) bound for the row's market. */
export function multiplierLookup(): string {
  return `transform(concat(c_exchange, '\\t', c_symbol), {mk:Array(String)}, {mk_mult:Array(Float64)}, toFloat64(1))`
}

/** SQL: true when the row's market counts sizes in contracts of unknown value (`mk_contracts`). */
export function contractsLookup(): string {
  return `transform(concat(c_exchange, '\\t', c_symbol), {mk:Array(String)}, {mk_contracts:Array(UInt8)}, toUInt8(0)) = 1`
}

/** Markets (`exchange symbol`) of a multi-market file whose sizes are contracts of unknown value, sorted. */
export function contractSizedMarkets(keys: ReadonlySet<string>): string[] {
  return [...keys]
    .filter((key) => sizesInContracts(key.split('\t')[0] ?? ''))
    .map((key) => key.replace('\t', ' '))
    .sort()
}
