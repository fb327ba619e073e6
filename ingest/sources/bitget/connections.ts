/**
 * @module
 * The Bitget public WebSocket connections of one source (`feed/venue-connections.ts`): at most
 * `perConnection` args per connection, subscribed with paced messages (`topics.ts`). New connections wait
 * for a shared limiter (Bitget: 300 connection attempts per 5 minutes per IP). Keepalive is Bitget's text
 * `ping` every `pingMs` (Bitget closes a connection that has sent no ping for 2 minutes, busy or not,
 * and asks for one every 30 s); the text `pong` answer is taken off the line and never reaches the
 * normalizer.
 */
import { VenueConnections, type ConnectionsBase } from '../feed/venue-connections.js'
import { subscribe, tradeSymbols, type BitgetArg, type SubscribePacing } from './topics.js'

/** New connections per minute across the source: half of Bitget's 300 per 5 minutes per IP. */
const CONNECTS_PER_MINUTE = 30
/** Connections opened at once after a quiet spell (start, a network cut): a third of a full market list. */
const CONNECT_BURST = 8
const PING = 'ping'

export interface BitgetConnectionsOptions extends ConnectionsBase {
  readonly pacing: SubscribePacing
  /** text `ping` period, ms (Bitget: 30 s) */
  readonly pingMs: number
}

export class BitgetConnections extends VenueConnections<BitgetArg> {
  constructor(opts: BitgetConnectionsOptions, signal: AbortSignal) {
    super(
      opts,
      {
        // a quiet line is pinged with the same text, never with a protocol ping frame
        keepalive: { pingText: PING, appPing: { text: () => PING, everyMs: opts.pingMs } },
        pong: 'pong',
        connects: { perMinute: CONNECTS_PER_MINUTE, burst: CONNECT_BURST },
        key: (arg) => `${arg.topic}|${arg.symbol ?? arg.instType}`,
        tradeSymbols,
        subscribe: (send, args, s) => subscribe(send, args, opts.pacing, s)
      },
      signal
    )
  }
}
