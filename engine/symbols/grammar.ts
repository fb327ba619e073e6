/**
 * @module
 * The written forms of a symbol (engine/symbols/resolve.ts reads them): the quotes, exchange prefixes and
 * perpetual markers it knows, and the JSON-Schema pattern of the same grammar, built from these constants
 * so the OpenAPI document and the reader cannot drift (test/unit/symbols-grammar.test.ts holds them
 * together). The pattern is case-insensitive by spelling each letter in both cases (JSON Schema patterns
 * take no flags) and admits exactly the texts `symbolOf` reads, written without the spaces around it trims; which of them name a known base, and the
 * cross pairs (ETHBTC) a known base refuses, are data and stay rules in prose.
 */
import { VENUES as CATALOG_VENUES } from '../../catalog/venues.js'
import { PERP_EXCHANGES } from '../records/types.js'

/** Quotes read as US dollars, longest first: a concatenated name is split at the longest that ends it. */
export const USD_QUOTES: readonly string[] = ['FDUSD', 'USDT', 'USDC', 'BUSD', 'USD']

/** Cross quotes refused at the end of a concatenated name (ETHBTC): the usual non-dollar quotes of spot venues. */
export const CROSS_QUOTES: readonly string[] = ['BTC', 'ETH', 'BNB', 'EUR', 'TRY']

/**
 * TradingView exchange prefixes and the venue each names: other exchanges, named so a refusal can say which
 * was meant, then the catalog's venues (catalog/venues.ts; its perpetual venues are the ones served), which
 * take precedence when a prefix is in both.
 */
export const TRADINGVIEW_VENUES: Readonly<Record<string, string>> = {
  BINANCEUS: 'binanceus',
  BITFINEX: 'bitfinex',
  BITGET: 'bitget',
  BITMEX: 'bitmex',
  BITSTAMP: 'bitstamp',
  COINBASE: 'coinbase',
  GATEIO: 'gateio',
  KRAKEN: 'kraken',
  KUCOIN: 'kucoin',
  MEXC: 'mexc',
  ...Object.fromEntries(CATALOG_VENUES.flatMap((v) => v.tradingView.map((prefix) => [prefix, v.id])))
}

/** Perpetual markers after a pair: TradingView `.P`, OKX `-SWAP`, FTX and Deribit `-PERP` / `-PERPETUAL`. */
export const PERP_SUFFIXES: readonly string[] = ['.P', '-SWAP', '-PERPETUAL', '-PERP', '_PERP']
/** `PERP` glued to a dollar quote (BTCUSDTPERP, TradingView's older perpetual name); PERP alone is a coin. */
export const GLUED_PERP = 'PERP'

/** Longest symbol read, characters (the API's symbol parameters allow as many). */
export const SYMBOL_MAX_LENGTH = 40
/** Longest base or quote, characters: what the normalizers store (BTC, 1000PEPE, 1INCH). */
export const PART_MAX_LENGTH = 20

/** Regular-expression source of `text` read case-insensitively: `usdt` -> `[uU][sS][dD][tT]`. */
export function anyCase(text: string): string {
  return [...text]
    .map((c) =>
      /[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    )
    .join('')
}

/** Regular-expression source of any one of `texts`, case-insensitively (JSON Schema patterns take no flags). */
export const oneOf = (texts: readonly string[]): string => `(?:${texts.map(anyCase).join('|')})`

/**
 * The pattern of every form `symbolOf` reads, with TradingView prefixes limited to `prefixes`:
 * `[PREFIX:]BODY[perpetual marker]`, BODY one of `BASE/QUOTE[:SETTLE]` (CCXT), `BASE-QUOTE` or `BASE_QUOTE`
 * (OKX), or a concatenated name (BTC, BTCUSDT, 1000PEPEUSDT); QUOTE a dollar quote; `PERP` may follow a body
 * ending in one (BTCUSDTPERP). No lookaround (generators of test values do not take it); the length limit is
 * the schema's `maxLength`.
 */
function symbolPattern(prefixes: readonly string[]): string {
  const part = `[A-Za-z0-9]{1,${PART_MAX_LENGTH}}`
  const usd = oneOf(USD_QUOTES)
  /** a base or settle code ending in a dollar quote, within the part length (BTCUSDT, settle USDT) */
  const partEndingUsd = `(?:${USD_QUOTES.map((q) => `[A-Za-z0-9]{0,${PART_MAX_LENGTH - q.length}}${anyCase(q)}`).join('|')})`
  const body = `(?:${part}/${usd}(?::${part})?|${part}[-_]${usd}|${part})`
  const bodyEndingUsd = `(?:${part}/${usd}(?::${partEndingUsd})?|${part}[-_]${usd}|${partEndingUsd})`
  const marked = `(?:${body}${oneOf(PERP_SUFFIXES)}?|${bodyEndingUsd}${anyCase(GLUED_PERP)})`
  return `^(?:${oneOf(prefixes)}:)?${marked}$`
}

/** JSON-Schema pattern of a symbol parameter: every form, any TradingView prefix the reader knows. */
export const SYMBOL_PATTERN = symbolPattern(Object.keys(TRADINGVIEW_VENUES))

/**
 * The pattern where a symbol also picks the venue (history and screener endpoints, `venueOf`): only the
 * prefixes of served venues (BINANCE:, BYBIT:, OKX:, OKEX:).
 */
export const VENUE_SYMBOL_PATTERN = symbolPattern(
  Object.entries(TRADINGVIEW_VENUES)
    .filter(([, venue]) => (PERP_EXCHANGES as readonly string[]).includes(venue))
    .map(([prefix]) => prefix)
)
