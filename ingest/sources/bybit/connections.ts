/**
 * @module
 * The Bybit topic connections of one source (`feed/feed-connections.ts`). Topics fill a connection up to
 * `perConnection` topics and ARGS_CHAR_BUDGET characters of args (Bybit's limit is 21,000 per public
 * connection); a topic already added is skipped. Each connection sends Bybit's app-level ping
 * (`{"op":"ping"}`) every `pingMs`.
 */
import type { Logger } from '../../../engine/log.js'
import type { BackoffOptions } from '../../../engine/runtime/backoff.js'
import { FeedConnections } from '../feed/feed-connections.js'
import { ARGS_CHAR_BUDGET, argChars, pingMessage, subscribe, tradeSymbols, type SubscribePacing } from './topics.js'

export interface TopicConnectionsOptions {
  /** public linear endpoint, e.g. wss://stream.bybit.com/v5/public/linear */
  readonly url: string
  readonly log: Logger
  readonly perConnection: number
  readonly pacing: SubscribePacing
  /** app-level ping period, ms (Bybit: 20 s) */
  readonly pingMs: number
  readonly staleMs: number
  readonly backoff: BackoffOptions
  readonly onMessage: (text: string, recvTs: number) => void
  /** a connection reopened: the symbols of its `publicTrade.` topics */
  readonly onReopen?: (symbols: readonly string[]) => void
}

export class TopicConnections extends FeedConnections<string> {
  constructor(opts: TopicConnectionsOptions, signal: AbortSignal) {
    super(
      {
        socket: {
          url: opts.url,
          log: opts.log,
          staleMs: opts.staleMs,
          backoff: opts.backoff,
          appPing: { text: pingMessage, everyMs: opts.pingMs },
          onMessage: opts.onMessage
        },
        perConnection: opts.perConnection,
        budget: { cost: argChars, max: ARGS_CHAR_BUDGET },
        key: (topic) => topic,
        onReopen: (topics) => opts.onReopen?.(tradeSymbols(topics)),
        subscribe: (send, topics, s) => subscribe(send, topics, opts.pacing, s)
      },
      signal
    )
  }
}
