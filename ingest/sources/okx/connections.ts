/**
 * @module
 * The OKX public WebSocket connections of one source (`feed/feed-connections.ts`): at most `perConnection`
 * subscription args per connection, subscribed with paced messages (`channels.ts`). New connections wait
 * for a shared limiter (OKX: 3 connection attempts per second per IP). Keepalive is OKX's text `ping` after
 * `pingAfterMs` of silence (OKX closes a connection silent for 30 s); the text `pong` answer is taken off
 * the line here and never reaches the normalizer.
 */
import type { Logger } from '../../../engine/log.js'
import type { BackoffOptions } from '../../../engine/runtime/backoff.js'
import { FeedConnections } from '../feed/feed-connections.js'
import { WeightLimiter } from '../feed/weight-limiter.js'
import { subscribe, type OkxArg, type SubscribePacing } from './channels.js'

/** New connections per minute across the source: 2 a second, under OKX's 3 per second per IP. */
const CONNECTS_PER_MINUTE = 120

export interface OkxConnectionsOptions {
  /** public endpoint, e.g. wss://ws.okx.com:8443/ws/v5/public */
  readonly url: string
  readonly log: Logger
  readonly perConnection: number
  readonly pacing: SubscribePacing
  readonly staleMs: number
  readonly pingAfterMs: number
  readonly backoff: BackoffOptions
  readonly onMessage: (text: string, recvTs: number) => void
  /** a connection reopened: the instruments of its `trades` args */
  readonly onReopen?: (instIds: readonly string[]) => void
}

export class OkxConnections extends FeedConnections<OkxArg> {
  private readonly keepalive: { pongs: number }

  constructor(opts: OkxConnectionsOptions, signal: AbortSignal) {
    const connects = new WeightLimiter(CONNECTS_PER_MINUTE, 2)
    const keepalive = { pongs: 0 }
    super(
      {
        socket: {
          url: opts.url,
          log: opts.log,
          staleMs: opts.staleMs,
          pingAfterMs: opts.pingAfterMs,
          pingText: 'ping',
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
        key: (arg) => `${arg.channel}|${arg.instId ?? arg.instType ?? ''}`,
        onReopen: (args) =>
          opts.onReopen?.(args.flatMap((a) => (a.channel === 'trades' && a.instId !== undefined ? [a.instId] : []))),
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
