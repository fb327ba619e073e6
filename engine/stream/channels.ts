/**
 * @module
 * Push-stream channel names (docs/stream.md): parsed once at subscribe time into a spec the hub routes
 * updates by. A market is a symbol in any form the one symbol resolver reads (engine/symbols/resolve.ts:
 * `BTC`, `BTCUSDT`, `BTC/USDT:USDT`, `BINANCE:BTCUSDT.P`, ...), optionally with `@<exchange>`; a TradingView
 * prefix names the venue like `@binance`. The canonical name is the base upper-cased (and the venue
 * lower-cased), so `trades:btc`, `trades:BTCUSDT` and `trades:BTC/USDT` are one channel, `trades:BTC`.
 */
import { CHAINS, PERP_EXCHANGES, type Chain } from '../records/types.js'
import { TIMEFRAME_NAMES, type TimeframeName } from '../history/timeframes.js'
import { SIGNIFICANCE_LEVELS, type Significance } from '../whales/significance.js'
import { OPTIONS_CURRENCIES } from '../live/options-book.js'
import { symbolOf, type ParsedSymbol } from '../symbols/resolve.js'

export type ChannelSpec =
  | { readonly type: 'trades'; readonly name: string; readonly base: string; readonly exchange: string | null }
  | {
      readonly type: 'candles'
      readonly name: string
      readonly base: string
      readonly exchange: string | null
      readonly timeframe: TimeframeName
    }
  | { readonly type: 'funding'; readonly name: string; readonly base: string }
  | { readonly type: 'screener'; readonly name: string }
  | { readonly type: 'options'; readonly name: string; readonly currency: string }
  | {
      readonly type: 'whales'
      readonly name: string
      readonly chain: Chain | null
      readonly min: Significance
    }
  | { readonly type: 'confirm'; readonly name: string; readonly base: string }

export type ChannelType = ChannelSpec['type']

/** A channel name that cannot be served, with a message for a person. */
export class ChannelError extends Error {
  constructor(
    readonly code: 'unknown_channel' | 'invalid_channel',
    message: string
  ) {
    super(message)
  }
}

/** Default minimum significance of `whales:<chain|all>` (the same default as GET /v1/whales/events). */
export const WHALES_DEFAULT_MIN: Significance = 'medium'

const TYPES = ['trades', 'candles', 'funding', 'screener', 'options', 'whales', 'confirm'] as const
const isPerpExchange = (ex: string): boolean => (PERP_EXCHANGES as readonly string[]).includes(ex)

/**
 * The market of a channel name's symbol part. `perBase`: the channel covers every venue of a base (funding,
 * confirm): `@<exchange>` is refused, a TradingView prefix only names the base (as on GET /v1/confirm).
 */
function market(raw: string, channel: string, perBase: boolean): { base: string; exchange: string | null } {
  if (raw === '') throw new ChannelError('invalid_channel', `${channel}: a symbol is missing`)
  const [text, ex, extra] = raw.split('@')
  if (extra !== undefined) throw new ChannelError('invalid_channel', `${channel}: one @<exchange> at most`)
  let symbol: ParsedSymbol
  try {
    symbol = symbolOf(text!)
  } catch (err) {
    throw new ChannelError('invalid_channel', `${channel}: ${(err as Error).message}`)
  }
  if (ex !== undefined && perBase) {
    throw new ChannelError(
      'invalid_channel',
      `${channel}: no @<exchange> here, the channel covers every venue of a base`
    )
  }
  let exchange = ex === undefined ? null : ex.toLowerCase()
  if (exchange !== null && !isPerpExchange(exchange)) {
    throw new ChannelError(
      'invalid_channel',
      `${channel}: exchange '${ex}' is not supported (use ${PERP_EXCHANGES.join(', ')})`
    )
  }
  const venue = perBase ? null : symbol.venue
  if (venue !== null) {
    if (!isPerpExchange(venue)) {
      throw new ChannelError(
        'invalid_channel',
        `${channel}: ${venue} is not a venue served (use ${PERP_EXCHANGES.join(', ')})`
      )
    }
    if (exchange !== null && exchange !== venue) {
      throw new ChannelError('invalid_channel', `${channel}: the symbol names ${venue} but @ names ${exchange}`)
    }
    exchange = venue
  }
  return { base: symbol.base, exchange }
}

const marketName = (m: { base: string; exchange: string | null }): string =>
  m.exchange ? `${m.base}@${m.exchange}` : m.base

function arity(parts: readonly string[], min: number, max: number, channel: string, form: string): void {
  if (parts.length < min || parts.length > max) {
    throw new ChannelError('invalid_channel', `${channel}: expected ${form}`)
  }
}

/** Parses a channel name; throws ChannelError naming what is wrong. */
export function parseChannel(raw: string): ChannelSpec {
  if (raw.length > 64) throw new ChannelError('invalid_channel', 'channel names are at most 64 characters')
  const parts = raw.split(':')
  const type = parts[0]!.toLowerCase()
  if (!(TYPES as readonly string[]).includes(type)) {
    throw new ChannelError('unknown_channel', `unknown channel '${raw}' (channels: ${TYPES.join(', ')})`)
  }
  // a symbol may hold colons itself (BTC/USDT:USDT, BINANCE:BTCUSDT.P): everything after the type (and, for
  // candles, before the timeframe) is the symbol
  const rest = raw.slice(parts[0]!.length + 1)
  switch (type as (typeof TYPES)[number]) {
    case 'trades': {
      arity(parts, 2, Infinity, raw, 'trades:<symbol>, e.g. trades:BTC or trades:BTC@binance')
      const m = market(rest, raw, false)
      return { type: 'trades', name: `trades:${marketName(m)}`, ...m }
    }
    case 'candles': {
      arity(parts, 3, Infinity, raw, 'candles:<symbol>:<timeframe>, e.g. candles:BTC:1m')
      const tf = parts[parts.length - 1]!
      const m = market(rest.slice(0, -(tf.length + 1)), raw, false)
      const timeframe = tf as TimeframeName
      if (!(TIMEFRAME_NAMES as readonly string[]).includes(timeframe)) {
        throw new ChannelError(
          'invalid_channel',
          `${raw}: timeframe '${tf}' is not one of ${TIMEFRAME_NAMES.join(', ')}`
        )
      }
      return { type: 'candles', name: `candles:${marketName(m)}:${timeframe}`, ...m, timeframe }
    }
    case 'funding': {
      arity(parts, 2, Infinity, raw, 'funding:<base>, e.g. funding:ETH')
      const { base } = market(rest, raw, true)
      return { type: 'funding', name: `funding:${base}`, base }
    }
    case 'screener':
      arity(parts, 1, 1, raw, 'screener')
      return { type: 'screener', name: 'screener' }
    case 'options': {
      arity(parts, 2, 2, raw, 'options:<BTC|ETH>')
      const currency = parts[1]!.toUpperCase()
      if (!(OPTIONS_CURRENCIES as readonly string[]).includes(currency)) {
        throw new ChannelError('invalid_channel', `${raw}: options are served for ${OPTIONS_CURRENCIES.join(' and ')}`)
      }
      return { type: 'options', name: `options:${currency}`, currency }
    }
    case 'whales': {
      arity(parts, 2, 3, raw, 'whales:<chain|all>[:<significance>], e.g. whales:all:high')
      const c = parts[1]!.toLowerCase()
      if (c !== 'all' && !(CHAINS as readonly string[]).includes(c)) {
        throw new ChannelError(
          'invalid_channel',
          `${raw}: chain '${parts[1]}' is not all or one of ${CHAINS.join(', ')}`
        )
      }
      const min = (parts[2]?.toLowerCase() ?? WHALES_DEFAULT_MIN) as Significance
      if (!SIGNIFICANCE_LEVELS.includes(min)) {
        throw new ChannelError(
          'invalid_channel',
          `${raw}: significance '${parts[2]}' is not one of ${SIGNIFICANCE_LEVELS.join(', ')}`
        )
      }
      return { type: 'whales', name: `whales:${c}:${min}`, chain: c === 'all' ? null : (c as Chain), min }
    }
    case 'confirm': {
      arity(parts, 2, Infinity, raw, 'confirm:<base>, e.g. confirm:BTC')
      const { base } = market(rest, raw, true)
      return { type: 'confirm', name: `confirm:${base}`, base }
    }
  }
}

/** The base asset a channel is about (checked against the plan's symbols), or null. */
export function channelBase(spec: ChannelSpec): string | null {
  return 'base' in spec ? spec.base : spec.type === 'options' ? spec.currency : null
}
