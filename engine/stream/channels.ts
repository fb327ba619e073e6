/**
 * @module
 * Push-stream channel names (docs/stream.md): parsed once at subscribe time into a spec the hub routes
 * updates by. The first ':'-separated part is the channel type; the kind of that type (kinds/registry.ts)
 * reads the rest. Symbols are read with the one resolver (channel-name.ts), so `trades:btc`,
 * `trades:BTCUSDT` and `trades:BTC/USDT` are one channel, `trades:BTC`.
 */
import type { ChannelKind } from './kinds/kind.js'
import { CHANNEL_KINDS } from './kinds/registry.js'
import { ChannelError } from './channel-name.js'

export { ChannelError } from './channel-name.js'
export { WHALES_DEFAULT_MIN } from './kinds/whales.js'

type SpecOf<K> = K extends ChannelKind<infer S, infer _State> ? S : never

/** A parsed channel: the spec of one of the registered kinds. */
export type ChannelSpec = SpecOf<(typeof CHANNEL_KINDS)[number]>
export type ChannelType = ChannelSpec['type']

/** Longest channel name read, characters. */
const MAX_NAME = 64

const KINDS: ReadonlyMap<string, ChannelKind> = new Map<string, ChannelKind>(CHANNEL_KINDS.map((k) => [k.type, k]))
const TYPES = CHANNEL_KINDS.map((k) => k.type).join(', ')

/** The kind of a channel type. */
export function kindOf(type: ChannelType): ChannelKind {
  return KINDS.get(type)!
}

/** Parses a channel name; throws ChannelError naming what is wrong. */
export function parseChannel(raw: string): ChannelSpec {
  if (raw.length > MAX_NAME) {
    throw new ChannelError('invalid_channel', `channel names are at most ${MAX_NAME} characters`)
  }
  const parts = raw.split(':')
  const kind = KINDS.get(parts[0]!.toLowerCase())
  if (!kind) throw new ChannelError('unknown_channel', `unknown channel '${raw}' (channels: ${TYPES})`)
  // a symbol may hold colons itself (BTC/USDT:USDT, BINANCE:BTCUSDT.P): the kind reads everything after the type
  return kind.parse({ raw, parts, rest: raw.slice(parts[0]!.length + 1) }) as ChannelSpec
}

/** The base asset a channel is about (checked against the plan's symbols), or null. */
export function channelBase(spec: ChannelSpec): string | null {
  return kindOf(spec.type).base(spec)
}
