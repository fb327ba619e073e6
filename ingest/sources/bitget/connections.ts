/**
 * @module
 * The Bitget public WebSocket connections of one source (`feed/feed-connections.ts`): at most
 * `perConnection` args per connection, subscribed with paced messages (`topics.ts`). New connections wait
 * for a shared limiter (Bitget: 300 connection attempts per 5 minutes per IP). Keepalive is Bitget's text
 * `ping` every `pingMs` (Bitget closes a connection that has sent no ping for 2 minutes, busy or not,
 * and asks for one every 30 s); the text `pong` answer is taken off the line here and never reaches the
 * normalizer.
 */
import type { Logger } from '../../../engine/log.js'
import type { BackoffOptions } from '../../../engine/runtime/backoff.js'
import { FeedConnections } from '../feed/feed-connections.js'
import { WeightLimiter } from '../feed/weight-limiter.js'
import { subscribe, tradeSymbols, type BitgetArg, type SubscribePacing } from './topics.js'

/** New connections per minute across the source: half of Bitget's 300 per 5 minutes per IP. */
const CONNECTS_PER_MINUTE = 30
/** Connections opened at once after a quiet spell (start, a network cut): a third of a full market list. */
const CONNECT_BURST = 8
const PING = 'ping'

export interface BitgetConnectionsOptions {
  /** public endpoint, e.g. wss://ws.bitget.com/v3/ws/public */
  readonly url: string
  readonly log: Logger
  readonly perConnection: number
  readonly pacing: SubscribePacing
  /** text `ping` period, ms (Bitget: 30 s) */
  readonly pingMs: number
  readonly staleMs: number
  readonly backoff: BackoffOptions
  readonly onMessage: (text: string, recvTs: number) => void
  /** a connection reopened: the symbols of its `publicTrade` args */
  readonly onReopen?: (symbols: readonly string[]) => void
}

export class BitgetConnections extends FeedConnections<BitgetArg> {
  private readonly keepalive: { pongs: number }

  constructor(opts: BitgetConnectionsOptions, signal: AbortSignal) {
    const connects = new WeightLimiter(CONNECTS_PER_MINUTE, CONNECT_BURST)
    const keepalive = { pongs: 0 }
    super(
      {
        socket: {
          url: opts.url,
          log: opts.log,
          staleMs: opts.staleMs,
          // a quiet line is pinged with the same text, never with a protocol ping frame
          pingText: PING,
          appPing: { text: () => PING, everyMs: opts.pingMs },
          backoff: opts.backoff,
          beforeConnect: (s) => connects.take(1, s),
          onMessage: (text, recvTs) => {
            // the keepalive answer is plain text, not JSON: protocol chatter, not a parse error
            if (text === 'pong') keepalive.pongs++
            else opts.onMessage(text, recvTs)
          }
        },
        perConnection: opts.perConnection,
        // a market delisted and listed again is not subscribed twice on the live connections
        key: (arg) => `${arg.topic}|${arg.symbol ?? arg.instType}`,
        onReopen: (args) => opts.onReopen?.(tradeSymbols(args)),
        subscribe: (send, args, s) => subscribe(send, args, opts.pacing, s)
      },
      signal
    )
    this.keepalive = keepalive
  }

  /** `pong` answers to our keepalive pings */
  get pongs(): number {
    return this.keepalive.pongs
  }
}
