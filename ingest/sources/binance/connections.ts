/**
 * @module
 * The set of Binance stream connections of one source (`feed/feed-connections.ts`): at most
 * `perConnection` streams per connection, subscribed with paced SUBSCRIBE messages (`streams.ts`); the
 * `ws` client answers Binance's ping frames.
 */
import type { Logger } from '../../../engine/log.js'
import type { BackoffOptions } from '../../../engine/runtime/backoff.js'
import { FeedConnections } from '../feed/feed-connections.js'
import { subscribe, type SubscribePacing } from './streams.js'

export interface StreamConnectionsOptions {
  /** combined-stream endpoint, e.g. wss://fstream.binance.com/stream */
  readonly url: string
  readonly log: Logger
  readonly perConnection: number
  readonly pacing: SubscribePacing
  readonly staleMs: number
  readonly backoff: BackoffOptions
  readonly onMessage: (text: string, recvTs: number) => void
}

export class StreamConnections extends FeedConnections<string> {
  constructor(opts: StreamConnectionsOptions, signal: AbortSignal) {
    super(
      {
        socket: {
          url: opts.url,
          log: opts.log,
          staleMs: opts.staleMs,
          backoff: opts.backoff,
          onMessage: opts.onMessage
        },
        perConnection: opts.perConnection,
        subscribe: (send, streams, s) => subscribe(send, streams, opts.pacing, s)
      },
      signal
    )
  }
}
