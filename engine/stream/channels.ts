/**
 * @module
 * Push-stream channel names (docs/stream.md): parsed once at subscribe time into a spec the hub routes
 * updates by. A market is `<BASE>` or `<BASE>@<exchange>`; the canonical name upper-cases the base and
 * lower-cases everything else, so `trades:btc` and `trades:BTC` are one channel.
 */
import { CHAINS, PERP_EXCHANGES, type Chain } from '../records/types.js'
import { TIMEFRAME_NAMES, type TimeframeName } from '../history/timeframes.js'
import { SIGNIFICANCE_LEVELS, type Significance } from '../whales/significance.js'
import { OPTIONS_CURRENCIES } from '../live/options-book.js'

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
const BASE_RE = /^[A-Z0-9]{1,20}$/

function market(raw: string | undefined, channel: string): { base: string; exchange: string | null } {
  if (raw === undefined || raw === '') throw new ChannelError('invalid_channel', `${channel}: a symbol is missing`)
  const [b, ex, extra] = raw.split('@')
  const base = b!.toUpperCase()
  if (!BASE_RE.test(base) || extra !== undefined) {
    throw new ChannelError('invalid_channel', `${channel}: '${raw}' is not a base asset like BTC or BTC@okx`)
  }
  if (ex === undefined) return { base, exchange: null }
  const exchange = ex.toLowerCase()
  if (!(PERP_EXCHANGES as readonly string[]).includes(exchange)) {
    throw new ChannelError(
      'invalid_channel',
      `${channel}: exchange '${ex}' is not supported (use ${PERP_EXCHANGES.join(', ')})`
    )
  }
  return { base, exchange }
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
  switch (type as (typeof TYPES)[number]) {
    case 'trades': {
      arity(parts, 2, 2, raw, 'trades:<symbol>, e.g. trades:BTC or trades:BTC@binance')
      const m = market(parts[1], raw)
      return { type: 'trades', name: `trades:${marketName(m)}`, ...m }
    }
    case 'candles': {
      arity(parts, 3, 3, raw, 'candles:<symbol>:<timeframe>, e.g. candles:BTC:1m')
      const m = market(parts[1], raw)
      const timeframe = parts[2] as TimeframeName
      if (!(TIMEFRAME_NAMES as readonly string[]).includes(timeframe)) {
        throw new ChannelError(
          'invalid_channel',
          `${raw}: timeframe '${parts[2]}' is not one of ${TIMEFRAME_NAMES.join(', ')}`
        )
      }
      return { type: 'candles', name: `candles:${marketName(m)}:${timeframe}`, ...m, timeframe }
    }
    case 'funding': {
      arity(parts, 2, 2, raw, 'funding:<base>, e.g. funding:ETH')
      const m = market(parts[1], raw)
      if (m.exchange) throw new ChannelError('invalid_channel', `${raw}: funding channels cover every venue of a base`)
      return { type: 'funding', name: `funding:${m.base}`, base: m.base }
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
      arity(parts, 2, 2, raw, 'confirm:<base>, e.g. confirm:BTC')
      const m = market(parts[1], raw)
      if (m.exchange) throw new ChannelError('invalid_channel', `${raw}: confirm scores are per base asset`)
      return { type: 'confirm', name: `confirm:${m.base}`, base: m.base }
    }
  }
}

/** The base asset a channel is about (checked against the plan's symbols), or null. */
export function channelBase(spec: ChannelSpec): string | null {
  return 'base' in spec ? spec.base : spec.type === 'options' ? spec.currency : null
}
