/**
 * @module
 * The Bybit topic connections of one source (`feed/venue-connections.ts`). Topics fill a connection up to
 * `perConnection` topics and ARGS_CHAR_BUDGET characters of args (Bybit's limit is 21,000 per public
 * connection); a topic already added is skipped. Each connection sends Bybit's app-level ping
 * (`{"op":"ping"}`) every `pingMs`.
 */
import { VenueConnections, type ConnectionsBase } from '../feed/venue-connections.js'
import { ARGS_CHAR_BUDGET, argChars, pingMessage, subscribe, tradeSymbols, type SubscribePacing } from './topics.js'

export interface TopicConnectionsOptions extends ConnectionsBase {
  readonly pacing: SubscribePacing
  /** app-level ping period, ms (Bybit: 20 s) */
  readonly pingMs: number
}

export class TopicConnections extends VenueConnections<string> {
  constructor(opts: TopicConnectionsOptions, signal: AbortSignal) {
    super(
      opts,
      {
        keepalive: { appPing: { text: pingMessage, everyMs: opts.pingMs } },
        budget: { cost: argChars, max: ARGS_CHAR_BUDGET },
        key: (topic) => topic,
        tradeSymbols,
        subscribe: (send, topics, s) => subscribe(send, topics, opts.pacing, s)
      },
      signal
    )
  }
}
