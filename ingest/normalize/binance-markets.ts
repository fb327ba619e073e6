/**
 * @module
 * Binance USD-M market discovery and per-market units: which symbols are live USDT perpetuals
 * (`GET /fapi/v1/exchangeInfo`), their funding interval (`GET /fapi/v1/fundingInfo`, which lists only
 * markets with non-default settings; the rest settle every 8 h), and the contract multiplier of
 * "1000PEPE"-style markets, whose prices and sizes are converted to the plain coin. Delivery (dated)
 * contracts share the USD-M streams (`!markPrice@arr`, `!forceOrder@arr`) but are not followed: they pay
 * no funding and the screener lists perpetuals only.
 */
import { scaledBase } from '../../engine/symbols/multiplier.js'

export interface MarketMeta {
  /** exchange-native symbol, e.g. `BTCUSDT`, `1000PEPEUSDT` */
  readonly symbol: string
  /** the plain coin (`PEPE` for `1000PEPEUSDT`) */
  readonly base: string
  readonly quote: string
  /** coins per contract unit: 1000 for `1000PEPEUSDT` (price per 1000 PEPE, size in 1000s of PEPE), else 1 */
  readonly multiplier: number
}

/** Quote assets recognized when a symbol must be split without exchangeInfo (a replay of a later hour). */
const QUOTES = ['USDT', 'USDC', 'FDUSD', 'BUSD']

/** Binance names delivery contracts `<pair>_<YYMMDD>`: `BTCUSDT_250328` is delivered on 2025-03-28. */
const DELIVERY_SYMBOL = /_\d{6}$/
/** exchangeInfo `contractType` of delivery contracts: CURRENT_/NEXT_ MONTH or QUARTER (and their _DELIVERING states). */
const DELIVERY_TYPE = /MONTH|QUARTER/

/** A delivery contract by its name alone (a message may come before, or without, any exchangeInfo). */
export function isDeliverySymbol(symbol: string): boolean {
  return DELIVERY_SYMBOL.test(symbol)
}

/**
 * Splits a base asset like `1000PEPE` into the coin and its multiplier: Binance prefixes low-priced coins
 * with 1000, 10000, 1000000 or 1M (engine/symbols/multiplier.ts).
 */
export { scaledBase }

/** Market meta from the symbol alone, for symbols that exchangeInfo has not described (yet). */
export function guessMarket(symbol: string): MarketMeta {
  const quote = QUOTES.find((q) => symbol.endsWith(q) && symbol.length > q.length) ?? 'USDT'
  const baseAsset = symbol.endsWith(quote) ? symbol.slice(0, -quote.length) : symbol
  return { symbol, quote, ...scaledBase(baseAsset) }
}

interface ExchangeInfoSymbol {
  symbol?: unknown
  contractType?: unknown
  status?: unknown
  baseAsset?: unknown
  quoteAsset?: unknown
}

/** USDT perpetuals with status TRADING from an exchangeInfo body; null when the body is not one. */
export function usdtPerpetuals(body: unknown): MarketMeta[] | null {
  const symbols = (body as { symbols?: unknown } | null)?.symbols
  if (!Array.isArray(symbols)) return null
  const out: MarketMeta[] = []
  for (const s of symbols as (ExchangeInfoSymbol | null)[]) {
    if (s?.contractType !== 'PERPETUAL' || s.status !== 'TRADING' || s.quoteAsset !== 'USDT') continue
    if (typeof s.symbol !== 'string' || typeof s.baseAsset !== 'string') continue
    out.push({ symbol: s.symbol, quote: 'USDT', ...scaledBase(s.baseAsset) })
  }
  return out
}

/** Symbols an exchangeInfo body lists as delivery contracts, whatever their name; null when the body is not one. */
export function deliveryContracts(body: unknown): string[] | null {
  const symbols = (body as { symbols?: unknown } | null)?.symbols
  if (!Array.isArray(symbols)) return null
  const out: string[] = []
  for (const s of symbols as (ExchangeInfoSymbol | null)[]) {
    if (typeof s?.symbol === 'string' && typeof s.contractType === 'string' && DELIVERY_TYPE.test(s.contractType)) {
      out.push(s.symbol)
    }
  }
  return out
}

/** Funding interval per symbol from a fundingInfo body; null when the body is not one. */
export function fundingIntervals(body: unknown): Map<string, number> | null {
  if (!Array.isArray(body)) return null
  const out = new Map<string, number>()
  for (const row of body as ({ symbol?: unknown; fundingIntervalHours?: unknown } | null)[]) {
    const h = Number(row?.fundingIntervalHours)
    if (typeof row?.symbol === 'string' && Number.isInteger(h) && h > 0 && h <= 24) out.set(row.symbol, h)
  }
  return out
}
