/**
 * @module
 * The pieces of channel-name grammar the kinds share (engine/stream/kinds/): the error a bad name raises,
 * the market part of a name read with the one symbol resolver (engine/symbols/resolve.ts: `BTC`, `BTCUSDT`,
 * `BTC/USDT:USDT`, `BINANCE:BTCUSDT.P`, ..., optionally with `@<exchange>`), and an arity check. A
 * TradingView prefix names the venue like `@binance`; the canonical market is the base upper-cased and the
 * venue lower-cased, so `trades:btc`, `trades:BTCUSDT` and `trades:BTC/USDT` are one channel, `trades:BTC`.
 */
import { PERP_EXCHANGES } from '../records/types.js'
import { symbolOf, type ParsedSymbol } from '../symbols/resolve.js'

/** A channel name that cannot be served, with a message for a person. */
export class ChannelError extends Error {
  constructor(
    readonly code: 'unknown_channel' | 'invalid_channel',
    message: string
  ) {
    super(message)
  }
}

const isPerpExchange = (ex: string): boolean => (PERP_EXCHANGES as readonly string[]).includes(ex)

/** A base, and the venue a channel is limited to (null: every venue of the base). */
export interface ChannelMarket {
  readonly base: string
  readonly exchange: string | null
}

/**
 * The market of a channel name's symbol part. `perBase`: the channel covers every venue of a base (funding,
 * confirm): `@<exchange>` is refused, a TradingView prefix only names the base (as on GET /v1/confirm).
 */
export function readMarket(raw: string, channel: string, perBase: boolean): ChannelMarket {
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

/** The canonical market part of a name: `BTC`, or `BTC@okx`. */
export const marketName = (m: ChannelMarket): string => (m.exchange ? `${m.base}@${m.exchange}` : m.base)

/** Throws unless the name has `min` to `max` ':'-separated parts; `form` shows the expected form. */
export function arity(parts: readonly string[], min: number, max: number, channel: string, form: string): void {
  if (parts.length < min || parts.length > max) {
    throw new ChannelError('invalid_channel', `${channel}: expected ${form}`)
  }
}
