/**
 * @module
 * The one reading of a symbol a client names: HTTP `symbol` / `asset` / `symbols` parameters, push-stream
 * channel names and TradingView alerts. Every accepted form names a base asset quoted in US dollars
 * (docs/read-api.md, "Symbols"), case-insensitive:
 *
 *   BTC                          a base asset
 *   BTCUSDT, BTCUSDC, BTCUSD     exchange-native concatenation (also BTCUSDTPERP, BTCUSDT_PERP)
 *   BTC/USDT, BTC/USDT:USDT      CCXT spot and swap
 *   BTC-USDT, BTC-USDT-SWAP      OKX spot and swap (also BTC_USDT, BTC-PERP, BTC-PERPETUAL)
 *   BINANCE:BTCUSDT.P            TradingView: exchange prefix, `.P` = perpetual (also BYBIT:, OKX:, no `.P`)
 *   1000PEPEUSDT, SHIB1000USDT   multiplier names: the plain coin (PEPE, SHIB), read by the normalizers' rule
 *
 * USD quotes: USDT, USDC, USD, FDUSD, BUSD. Any other quote (ETH/BTC, ETHBTC) is refused with 400
 * `invalid_parameter` naming these forms: the service holds USD-margined perpetuals only, so ETH's numbers
 * would be a wrong answer about ETH/BTC. A well-formed symbol whose base the service does not know answers
 * 400 `unknown_symbol` suggesting the nearest known bases. A TradingView prefix is a venue hint (`venueOf`).
 *
 * Pure and synchronous (no I/O): each distinct input is read once and remembered (bounded), so a hot route
 * pays a map lookup per request.
 */
import { PERP_VENUES, perpTradingViewPrefixes, perpVenueIdList, perpVenueLabels } from '../../catalog/venues.js'
import { ApiError } from '../errors.js'
import { PERP_EXCHANGES } from '../records/types.js'
import { multiplierBase } from './multiplier.js'
import {
  CROSS_QUOTES,
  GLUED_PERP,
  PART_MAX_LENGTH,
  PERP_SUFFIXES,
  SYMBOL_MAX_LENGTH,
  TRADINGVIEW_VENUES,
  USD_QUOTES
} from './grammar.js'
import { nearestBases } from './nearest.js'

export { SYMBOL_PATTERN, USD_QUOTES, VENUE_SYMBOL_PATTERN } from './grammar.js'

const MAX_LENGTH = SYMBOL_MAX_LENGTH
const CHARS = /^[A-Z0-9][A-Z0-9/:_.-]*$/
/** A base or quote: what the normalizers store (BTC, 1000PEPE, 1INCH). */
const PART = new RegExp(`^[A-Z0-9]{1,${PART_MAX_LENGTH}}$`)

/** Distinct inputs remembered; the map is cleared when full (cycling names costs re-reading, never memory). */
const CACHE_MAX = 4_096

/** The forms every refusal names. */
export const SYMBOL_FORMS =
  'a base asset (BTC) or a US-dollar pair: BTCUSDT, BTC/USDT, BTC/USDT:USDT, BTC-USDT, BTC-USDT-SWAP, BINANCE:BTCUSDT.P (quotes USDT, USDC, USD, FDUSD, BUSD)'

/** The usual TradingView prefix of each perpetual venue (BINANCE, BYBIT, OKX). */
const PERP_TV: readonly string[] = PERP_VENUES.map((v) => v.tradingView[0])
/** `BINANCE:BTCUSDT.P (also BYBIT:, OKX:` */
const TV_EXAMPLE = `${PERP_TV[0]!}:BTCUSDT.P (also ${PERP_TV.slice(1)
  .map((p) => `${p}:`)
  .join(', ')}`

/** Description of a symbol parameter, for the OpenAPI document (its pattern is SYMBOL_PATTERN). */
export const SYMBOL_PARAM_DESCRIPTION = `base asset, case-insensitive: BTC, or a US-dollar pair naming it: BTCUSDT, BTCUSDC, BTC/USDT, BTC/USDT:USDT, BTC-USDT, BTC-USDT-SWAP, TradingView ${TV_EXAMPLE}; the prefix acts as the exchange where the endpoint has one). Multiplier names mean the plain coin (1000PEPEUSDT = PEPE). Other quotes (ETH/BTC) are off the pattern and answer 400 invalid_parameter`

/** What refuses a symbol the pattern admits: the bases the service knows, and cross pairs written together. */
export const SYMBOL_DATA_RULE = `Rule: a base the service does not know answers 400 unknown_symbol with the nearest known bases; a concatenated name ending in ${CROSS_QUOTES.join(', ')} after two or more characters (ETHBTC) is a cross pair and answers 400 invalid_parameter, unless the whole name is a known base (STETH)`

export interface ParsedSymbol {
  /** the plain coin, upper-case: BTC for btc, BTCUSDT and BINANCE:BTCUSDT.P; PEPE for 1000PEPEUSDT */
  readonly base: string
  /** the dollar quote written (USDT, USDC, USD, FDUSD, BUSD); null for a bare base */
  readonly quote: string | null
  /** venue of a TradingView prefix, lower-case (binance, bybit, okx, or one not served, e.g. coinbase); else null */
  readonly venue: string | null
}

/** The base assets a caller knows (live screener, market directory, on-chain assets); a `Set` is one. */
export interface KnownBases {
  has(base: string): boolean
  /** every known base: read for suggestions, on the error path only */
  values(): Iterable<string>
}

interface Reading {
  /** the strict reading; null when refused */
  readonly symbol: ParsedSymbol | null
  /** why it is refused, naming the accepted forms ('' when read) */
  readonly refusal: string
  /** a concatenated name read whole as one base (WBTC, STETH, SUSD), tried when the split base is unknown */
  readonly whole: ParsedSymbol | null
  /** the base in front of a cross quote (ETH of ETHBTC); its being known makes the cross pair a refusal */
  readonly crossBase: string | null
}

/** `Binance, Bybit or OKX` */
const PERP_LABELS = perpVenueLabels('or')

const cache = new Map<string, Reading>()

/** The plain coin of a written base: the multiplier rule of the Binance and Bybit normalizers. */
const coin = (base: string): string => multiplierBase(base).base

const shown = (raw: string): string => {
  const t = raw.trim()
  return t.length > MAX_LENGTH ? `${t.slice(0, MAX_LENGTH)}…` : t
}

const refused = (refusal: string, extra: Partial<Reading> = {}): Reading => ({
  symbol: null,
  refusal,
  whole: null,
  crossBase: null,
  ...extra
})

const notDollar = (raw: string, base: string, quote: string): string =>
  `${shown(raw)} is quoted in ${quote}; only US-dollar quotes are served (${USD_QUOTES.join(', ')}): send ${base}, ${base}USDT, ${base}/USDT, ${base}/USDT:USDT, ${base}-USDT-SWAP or BINANCE:${base}USDT.P`

function withoutPerpSuffix(body: string): string {
  for (const suffix of PERP_SUFFIXES) {
    if (body.length > suffix.length && body.endsWith(suffix)) return body.slice(0, -suffix.length)
  }
  if (body.endsWith(GLUED_PERP)) {
    const rest = body.slice(0, -GLUED_PERP.length)
    if (USD_QUOTES.some((q) => rest.length > q.length && rest.endsWith(q))) return rest
  }
  return body
}

/** A name without separators: BTCUSDT, 1000PEPEUSDT, ETHBTC, WBTC, BTC. */
function readConcatenated(raw: string, body: string, venue: string | null): Reading {
  const whole: ParsedSymbol = { base: body, quote: null, venue }
  if (!USD_QUOTES.includes(body)) {
    for (const q of USD_QUOTES) {
      if (body.length > q.length && body.endsWith(q)) {
        return {
          symbol: { base: coin(body.slice(0, -q.length)), quote: q, venue },
          refusal: '',
          whole,
          crossBase: null
        }
      }
    }
    for (const q of CROSS_QUOTES) {
      // a single letter in front is a coin's name (WBTC, WETH), not a pair
      if (body.length - q.length >= 2 && body.endsWith(q)) {
        const base = coin(body.slice(0, -q.length))
        return refused(notDollar(raw, base, q), { whole, crossBase: base })
      }
    }
  }
  return { symbol: { base: coin(body), quote: null, venue }, refusal: '', whole: null, crossBase: null }
}

function read(raw: string): Reading {
  const s = raw.trim().toUpperCase()
  const malformed = `${shown(raw)} is not a symbol: send ${SYMBOL_FORMS}`
  if (s.length === 0 || s.length > MAX_LENGTH || !CHARS.test(s)) return refused(malformed)
  let body = s
  let venue: string | null = null
  const colon = s.indexOf(':')
  const slash = s.indexOf('/')
  if (colon >= 0 && (slash < 0 || colon < slash)) {
    const prefix = s.slice(0, colon)
    venue = TRADINGVIEW_VENUES[prefix] ?? null
    if (venue === null) {
      return refused(
        `${shown(raw)}: ${prefix} is not an exchange prefix we read (${perpTradingViewPrefixes()}); send ${SYMBOL_FORMS}`
      )
    }
    body = s.slice(colon + 1)
  }
  body = withoutPerpSuffix(body)
  let base: string
  let quote: string
  if (body.includes('/')) {
    // CCXT: BASE/QUOTE or BASE/QUOTE:SETTLE
    const [b = '', rest = ''] = body.split('/', 2)
    const [q = '', settle, extra] = rest.split(':')
    if (body.indexOf('/') !== body.lastIndexOf('/') || extra !== undefined) return refused(malformed)
    if (settle !== undefined && !PART.test(settle)) return refused(malformed)
    base = b
    quote = q
  } else if (/[-_]/.test(body)) {
    const parts = body.split(/[-_]/)
    if (parts.length !== 2) return refused(malformed)
    base = parts[0]!
    quote = parts[1]!
  } else {
    if (!PART.test(body)) return refused(malformed)
    return readConcatenated(raw, body, venue)
  }
  if (!PART.test(base) || !PART.test(quote)) return refused(malformed)
  if (!USD_QUOTES.includes(quote)) return refused(notDollar(raw, coin(base), quote))
  return { symbol: { base: coin(base), quote, venue }, refusal: '', whole: null, crossBase: null }
}

function reading(raw: string): Reading {
  let r = cache.get(raw)
  if (r === undefined) {
    if (cache.size >= CACHE_MAX) cache.clear()
    r = read(raw)
    cache.set(raw, r)
  }
  return r
}

const refusalError = (r: Reading, param: string): ApiError =>
  new ApiError('invalid_parameter', `${param} ${r.refusal}`, { param })

/**
 * Reads a symbol without knowing which bases exist. A refused form (another quote, a malformed name, an
 * unknown exchange prefix) returns 400 `invalid_parameter` naming the accepted forms; nothing is thrown.
 * A concatenation ending in a cross quote (ETHBTC) is refused here; `resolveSymbol` reads it whole when that
 * is a known base (STETH).
 * @param param the parameter's name, for the message
 */
export function parseSymbol(raw: string, param = 'symbol'): ParsedSymbol | ApiError {
  const r = reading(raw)
  return r.symbol ?? refusalError(r, param)
}

/**
 * Like `parseSymbol`, but a concatenation ending in a cross quote reads as one base (STETH, ETHBTC): for
 * callers that check the base against what they hold afterwards (channel names, the plan's symbol list).
 * Throws the 400 of a refused form.
 */
export function symbolOf(raw: string, param = 'symbol'): ParsedSymbol {
  const r = reading(raw)
  const s = r.symbol ?? r.whole
  if (s === null) throw refusalError(r, param)
  return s
}

/**
 * The bases a symbol may name without knowing which exist: its base, and a concatenated name read whole
 * (STETH, SUSD). Empty when the form is refused outright (ETH/BTC). For looking a symbol up in a store.
 */
export function baseCandidates(raw: string): string[] {
  const r = reading(raw)
  const out: string[] = []
  if (r.symbol !== null) out.push(r.symbol.base)
  if (r.whole !== null && r.whole.base !== r.symbol?.base) out.push(r.whole.base)
  return out
}

/**
 * The base to check against a plan's symbol list before a handler resolves the symbol (server/app.ts): the
 * base read without knowing which exist (`BINANCE:BTCUSDT.P` -> BTC, STETH whole), or for a refused form
 * the name as written, upper-case, which no plan lists.
 */
export function planBase(raw: string): string {
  const r = reading(raw)
  return (r.symbol ?? r.whole)?.base ?? raw.trim().toUpperCase()
}

/** `no perpetual market for X on Binance, Bybit or OKX`: the unknown-symbol message of the live routes. */
export const noPerpetualMarket = (base: string): string => `no perpetual market for ${base} on ${PERP_LABELS}`

/** 400 `unknown_symbol` for `base`: `describe(base)`, then the nearest known bases if any is close. */
export function unknownSymbol(
  base: string,
  known: KnownBases,
  param = 'symbol',
  describe: (base: string) => string = noPerpetualMarket
): ApiError {
  const near = nearestBases(base, known.values())
  const hint = near.length > 0 ? `; did you mean ${near.join(', ')}?` : ''
  return new ApiError('unknown_symbol', `${describe(base)}${hint}`, { param })
}

/**
 * Reads a symbol and checks its base against `known`; throws 400 `invalid_parameter` for a refused form,
 * 400 `unknown_symbol` (with suggestions) for an unknown base. A concatenated name is also tried whole
 * (WBTC, STETH). Synchronous; allocation-free for a symbol read before whose base is known.
 */
export function resolveSymbol(
  raw: string,
  known: KnownBases,
  param = 'symbol',
  describe: (base: string) => string = noPerpetualMarket
): ParsedSymbol {
  const r = reading(raw)
  const s = r.symbol
  if (s !== null && known.has(s.base)) return s
  if (r.whole !== null && known.has(r.whole.base)) return r.whole
  if (s === null && (r.whole === null || (r.crossBase !== null && known.has(r.crossBase)))) {
    throw refusalError(r, param)
  }
  throw unknownSymbol(s?.base ?? r.whole!.base, known, param, describe)
}

/** The base `resolveSymbol` resolves: e.g. for the TradingView alert webhook. */
export function resolveBase(raw: string, known: KnownBases, param = 'symbol'): string {
  return resolveSymbol(raw, known, param).base
}

/**
 * The venue a request names, for endpoints with an `exchange` parameter: that parameter, or the venue of a
 * TradingView prefix. 400 `invalid_parameter` when the prefix names a venue not served (COINBASE:) or one
 * other than `exchange`.
 */
export function venueOf(symbol: ParsedSymbol, exchange: string | undefined, param = 'symbol'): string | undefined {
  const v = symbol.venue
  if (v === null) return exchange
  if (!(PERP_EXCHANGES as readonly string[]).includes(v)) {
    throw new ApiError(
      'invalid_parameter',
      `${param} names ${v}, a venue not served (${perpVenueIdList()}): drop the prefix or use ${perpTradingViewPrefixes('or')}`,
      { param }
    )
  }
  if (exchange !== undefined && exchange !== v) {
    throw new ApiError(
      'invalid_parameter',
      `${param} names ${v} but exchange is ${exchange}: drop one or make them agree`,
      {
        param
      }
    )
  }
  return v
}

/**
 * The 400 message of a symbol parameter's value its published pattern refuses (SYMBOL_PATTERN,
 * VENUE_SYMBOL_PATTERN): the reader's refusal naming the forms, or with `venue` the refusal of a prefix
 * naming a venue not served. Undefined when the reader takes it (text with spaces around).
 */
export function symbolRefusal(param: string, raw: string, venue: boolean): string | undefined {
  const r = reading(raw)
  const s = r.symbol ?? r.whole
  if (s === null) return refusalError(r, param).message
  if (!venue) return undefined
  try {
    venueOf(s, undefined, param)
    return undefined
  } catch (e) {
    return (e as ApiError).message
  }
}
