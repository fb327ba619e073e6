/**
 * @module
 * The connection options every topic venue (Bybit, OKX, Bitget) builds the same way, and the one place
 * each states what differs: its keepalive, the text answer to it that is taken off the line, its connection
 * rate limit, how items are keyed and subscribed, and which items carry trades (a reopened connection's
 * markets get their missed trades fetched, feed/reconnect-fill.ts).
 */
import type { Logger } from '../../../engine/log.js'
import type { BackoffOptions } from '../../../engine/runtime/backoff.js'
import { FeedConnections, type FeedConnectionsOptions } from './feed-connections.js'
import type { FeedSocketOptions } from './feed-socket.js'
import { WeightLimiter } from './weight-limiter.js'

/** What a source hands its connections, the same for every venue. */
export interface ConnectionsBase {
  /** the venue's public WebSocket endpoint */
  readonly url: string
  readonly log: Logger
  /** most items (topics, args) on one connection */
  readonly perConnection: number
  /** a connection without any frame for this long is reopened, ms */
  readonly staleMs: number
  readonly backoff: BackoffOptions
  readonly onMessage: (text: string, recvTs: number) => void
  /** a connection reopened: the markets of its trade items */
  readonly onReopen?: (symbols: readonly string[]) => void
}

/** What differs between venues. */
export interface VenueProtocol<T> {
  /** the keepalive: an app-level message on a period and/or a text ping on a quiet line */
  readonly keepalive: Pick<FeedSocketOptions, 'appPing' | 'pingText' | 'pingAfterMs'>
  /** the venue's text answer to a text ping (`pong`): not JSON, counted and never handed on */
  readonly pong?: string
  /** connection attempts per minute across the source, and the burst after a quiet spell; unset: no limit */
  readonly connects?: { readonly perMinute: number; readonly burst: number }
  readonly budget?: FeedConnectionsOptions<T>['budget']
  /** an item's identity: one added before is skipped (a market delisted and listed again) */
  readonly key: (item: T) => string
  /** the markets of the trade items among `items` */
  readonly tradeSymbols: (items: readonly T[]) => readonly string[]
  /** sends (paced) subscribe messages for `items` */
  readonly subscribe: FeedConnectionsOptions<T>['subscribe']
}

/** The options of FeedConnections from the source's part and the venue's. */
export function venueConnectionOptions<T>(
  base: ConnectionsBase,
  protocol: VenueProtocol<T>,
  counts: { pongs: number }
): FeedConnectionsOptions<T> {
  const connects =
    protocol.connects === undefined ? null : new WeightLimiter(protocol.connects.perMinute, protocol.connects.burst)
  const pong = protocol.pong
  return {
    socket: {
      url: base.url,
      log: base.log,
      staleMs: base.staleMs,
      backoff: base.backoff,
      ...protocol.keepalive,
      ...(connects !== null && { beforeConnect: (s: AbortSignal) => connects.take(1, s) }),
      onMessage:
        pong === undefined
          ? base.onMessage
          : (text, recvTs) => {
              if (text === pong) counts.pongs++
              else base.onMessage(text, recvTs)
            }
    },
    perConnection: base.perConnection,
    ...(protocol.budget !== undefined && { budget: protocol.budget }),
    key: protocol.key,
    onReopen: (items) => base.onReopen?.(protocol.tradeSymbols(items)),
    subscribe: protocol.subscribe
  }
}

/** A venue's connections: FeedConnections built from the two parts, counting the keepalive answers. */
export class VenueConnections<T> extends FeedConnections<T> {
  private readonly counts: { pongs: number }

  constructor(base: ConnectionsBase, protocol: VenueProtocol<T>, signal: AbortSignal) {
    const counts = { pongs: 0 }
    super(venueConnectionOptions(base, protocol, counts), signal)
    this.counts = counts
  }

  /** text answers to our keepalive pings */
  get pongs(): number {
    return this.counts.pongs
  }
}
