/**
 * @module
 * Bybit v5 linear market discovery and per-market units. `GET /v5/market/instruments-info?category=linear`
 * (cursor paging, `nextPageCursor`) lists every linear contract; the adapter follows the perpetuals
 * (`contractType` LinearPerpetual) quoted in USDT with `status` Trading. `fundingInterval` is in minutes
 * (480 = 8 h; 60 and 240 exist). Low-priced coins are quoted per 1,000 or more coins with the multiplier in
 * `baseCoin` (`1000PEPE` for `1000PEPEUSDT`, the Binance convention, converted by the same rule,
 * engine/symbols/multiplier.ts),
 * and a few put it after the coin (`SHIB1000USDT`, baseCoin `SHIB1000`); both become the plain coin.
 */
import { DEFAULT_FUNDING_INTERVAL_HOURS } from '../../engine/records/types.js'
import { multiplierBase, type ScaledCoin } from '../../engine/symbols/multiplier.js'
import type { MarketMeta } from './binance-markets.js'

export type { MarketMeta } from './binance-markets.js'

const QUOTE = 'USDT'

/** The plain coin and multiplier of a Bybit `baseCoin` (prefix form as on Binance, or the suffix form). */
export const bybitBase: (baseCoin: string) => ScaledCoin = multiplierBase

/** Market meta from the symbol alone, for symbols instruments-info has not described (a replay of a later hour). */
export function guessBybitMarket(symbol: string): MarketMeta {
  const baseCoin = symbol.endsWith(QUOTE) && symbol.length > QUOTE.length ? symbol.slice(0, -QUOTE.length) : symbol
  return { symbol, quote: QUOTE, ...bybitBase(baseCoin) }
}

/** A followed market: meta plus the instrument's funding interval. */
export interface BybitMarket extends MarketMeta {
  /** hours between settlements (instrument `fundingInterval` / 60) */
  readonly intervalHours: number
}

export interface InstrumentsPage {
  /** the USDT perpetuals that are Trading on this page */
  readonly markets: BybitMarket[]
  /** cursor of the next page; empty on the last */
  readonly nextCursor: string
}

interface Instrument {
  symbol?: unknown
  contractType?: unknown
  status?: unknown
  baseCoin?: unknown
  quoteCoin?: unknown
  fundingInterval?: unknown
}

/** Funding interval in hours from `fundingInterval` minutes; null when absent or not a whole 1..24 h. */
export function intervalHoursOf(minutes: unknown): number | null {
  const h = Number(minutes) / 60
  return Number.isInteger(h) && h > 0 && h <= 24 ? h : null
}

/** One instruments-info answer (`{retCode:0, result:{list, nextPageCursor}}`); null when it is not one. */
export function instrumentsPage(body: unknown): InstrumentsPage | null {
  const b = body as { retCode?: unknown; result?: { list?: unknown; nextPageCursor?: unknown } } | null
  if (b?.retCode !== 0 || !Array.isArray(b.result?.list)) return null
  const markets: BybitMarket[] = []
  for (const i of b.result.list as Instrument[]) {
    if (i === null || typeof i !== 'object') continue
    if (i.contractType !== 'LinearPerpetual' || i.status !== 'Trading' || i.quoteCoin !== QUOTE) continue
    if (typeof i.symbol !== 'string' || typeof i.baseCoin !== 'string') continue
    markets.push({
      symbol: i.symbol,
      quote: QUOTE,
      ...bybitBase(i.baseCoin),
      // the instrument does not say: Bybit's usual interval, 8 h
      intervalHours: intervalHoursOf(i.fundingInterval) ?? DEFAULT_FUNDING_INTERVAL_HOURS
    })
  }
  const cursor = b.result.nextPageCursor
  return { markets, nextCursor: typeof cursor === 'string' ? cursor : '' }
}
