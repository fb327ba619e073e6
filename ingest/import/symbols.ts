/**
 * @module
 * Base and quote assets from exchange-native symbols, and Tidewatch exchange names from Tardis.dev
 * exchange ids. Candle tables key on (base, exchange, symbol) without the market type, so spot markets get
 * their own exchange name (`binance-spot`) and never mix with the perpetual of the same symbol.
 * Multiplier perpetuals (`1000PEPEUSDT`) are stored under the plain coin with prices per coin and sizes in
 * coins, as the live normalizers store them: `tardisCoin` reuses those normalizers' rules
 * (binance-vision.ts uses `scaledBase` directly).
 */
import { VENUES as CATALOG_VENUES, SPOT_SUFFIX, type VenueEntry } from '../../catalog/venues.js'
import { scaledBase } from '../normalize/binance-markets.js'
import { bybitBase } from '../normalize/bybit-markets.js'

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

/** A catalog venue's Tardis ids and where their markets are stored (its id, or its spot id). */
function tardisIds(v: VenueEntry): [string, Venue][] {
  const out: [string, Venue][] = []
  if (v.tardis?.perp !== undefined) out.push([v.tardis.perp, { exchange: v.id, market: 'perp' }])
  if (v.tardis?.spot !== undefined) out.push([v.tardis.spot, { exchange: `${v.id}${SPOT_SUFFIX}`, market: 'spot' }])
  return out
}

/** Tardis exchange ids Tidewatch also ingests live, under the names it uses there (catalog/venues.ts `tardis`). */
const TARDIS_VENUES: Readonly<Record<string, Venue>> = Object.fromEntries(
  (CATALOG_VENUES as readonly VenueEntry[]).flatMap(tardisIds)
)

/** The plain coin of a base asset and its multiplier (coins per unit of the symbol's prices and sizes). */
export interface Coin {
  readonly base: string
  /** 1000 for `1000PEPE`: prices are per 1000 coins, sizes in 1000s of coins; 1 when the base is the coin */
  readonly multiplier: number
}

/**
 * Tardis ids whose perpetual symbols carry a multiplier, converted as Tidewatch's live normalizer of that
 * venue does: `binance-futures` (`1000PEPEUSDT`, prefix only) and `bybit` (`1000PEPEUSDT` and the suffix
 * form `SHIB1000USDT`). Spot ids (`binance`, `bybit-spot`) are absent: a spot base is the coin.
 */
const TARDIS_COINS: Readonly<Record<string, (base: string) => Coin>> = {
  'binance-futures': scaledBase,
  bybit: bybitBase
}

/** The coin of a Tardis market's base asset; other venues keep the base as written (multiplier 1). */
export function tardisCoin(id: string, base: string): Coin {
  return TARDIS_COINS[id]?.(base) ?? { base, multiplier: 1 }
}

/**
 * Tardis ids whose sizes (trades `amount`, derivative_ticker `open_interest`) are exchange contracts whose
 * value in coins is not in the file: OKX sends `sz` and `oi` in contracts (one BTC-USDT-SWAP contract is
 * 0.01 BTC, `ctVal × ctMult` of the instruments answer, see ingest/normalize/okx-markets.ts) and Tardis keeps
 * them as sent (tardis-node src/mappers/okex.ts: `amount: Number(okexTrade.sz)`, `openInterest: Number(oi)`).
 */
const CONTRACT_SIZED = new Set(['okex-swap', 'okex-futures'])

/** True when the venue's trade amounts and open interest are in contracts of unknown value. */
export function sizesInContracts(id: string): boolean {
  return CONTRACT_SIZED.has(id)
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
