/**
 * @module
 * The OKX public WebSocket connections of one source (`feed/venue-connections.ts`): at most `perConnection`
 * subscription args per connection, subscribed with paced messages (`channels.ts`). New connections wait
 * for a shared limiter (OKX: 3 connection attempts per second per IP). Keepalive is OKX's text `ping` after
 * `pingAfterMs` of silence (OKX closes a connection silent for 30 s); the text `pong` answer is taken off
 * the line and never reaches the normalizer.
 */
import { VenueConnections, type ConnectionsBase } from '../feed/venue-connections.js'
import { subscribe, type OkxArg, type SubscribePacing } from './channels.js'

/** New connections per minute across the source: 2 a second, under OKX's 3 per second per IP. */
const CONNECTS_PER_MINUTE = 120

export interface OkxConnectionsOptions extends ConnectionsBase {
  readonly pacing: SubscribePacing
  /** a line quiet this long is sent a text `ping`, ms */
  readonly pingAfterMs: number
}

export class OkxConnections extends VenueConnections<OkxArg> {
  constructor(opts: OkxConnectionsOptions, signal: AbortSignal) {
    super(
      opts,
      {
        keepalive: { pingAfterMs: opts.pingAfterMs, pingText: 'ping' },
        pong: 'pong',
        connects: { perMinute: CONNECTS_PER_MINUTE, burst: 2 },
        key: (arg) => `${arg.channel}|${arg.instId ?? arg.instType ?? ''}`,
        tradeSymbols: (args) =>
          args.flatMap((a) => (a.channel === 'trades' && a.instId !== undefined ? [a.instId] : [])),
        subscribe: (send, args, s) => subscribe(send, args, opts.pacing, s)
      },
      signal
    )
  }
}
