/**
 * @module
 * The set of Binance stream connections of one source. Streams are added in one place (at start and when
 * discovery finds new markets): they fill the last connection up to `perConnection`, then open new ones.
 * Each connection subscribes its whole list on every open, so a reconnect resubscribes by itself.
 */
import type { Logger } from '../../../engine/log.js'
import type { BackoffOptions } from '../feed/backoff.js'
import { FeedSocket } from '../feed/feed-socket.js'
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

interface Connection {
  readonly socket: FeedSocket
  readonly streams: string[]
  /** sender of the open connection, null while it is down */
  live: { send: (text: string) => void; signal: AbortSignal } | null
}

export class StreamConnections {
  private readonly conns: Connection[] = []
  private readonly runs: Promise<void>[] = []

  constructor(
    private readonly opts: StreamConnectionsOptions,
    private readonly signal: AbortSignal
  ) {}

  get size(): number {
    return this.conns.length
  }

  get open(): number {
    return this.conns.filter((c) => c.socket.connected).length
  }

  get reconnects(): number {
    return this.conns.reduce((n, c) => n + c.socket.reconnects, 0)
  }

  get stale(): number {
    return this.conns.reduce((n, c) => n + c.socket.stale, 0)
  }

  /** Adds streams to the connections (subscribing at once where a connection is open). */
  add(streams: readonly string[]): void {
    let i = 0
    const last = this.conns.at(-1)
    if (last && last.streams.length < this.opts.perConnection) {
      const extra = streams.slice(0, this.opts.perConnection - last.streams.length)
      last.streams.push(...extra)
      i = extra.length
      if (last.live) void subscribe(last.live.send, extra, this.opts.pacing, last.live.signal)
    }
    for (; i < streams.length; i += this.opts.perConnection)
      this.openConnection(streams.slice(i, i + this.opts.perConnection))
  }

  private openConnection(streams: string[]): void {
    const conn: Connection = {
      streams,
      live: null,
      socket: new FeedSocket({
        url: this.opts.url,
        log: this.opts.log,
        staleMs: this.opts.staleMs,
        backoff: this.opts.backoff,
        onMessage: this.opts.onMessage,
        onOpen: async (send, signal) => {
          conn.live = { send, signal }
          signal.addEventListener('abort', () => (conn.live = null))
          await subscribe(send, conn.streams, this.opts.pacing, signal)
        }
      })
    }
    this.conns.push(conn)
    this.runs.push(conn.socket.run(this.signal))
  }

  /** Resolves when every connection has closed for good (after the signal aborted). */
  async done(): Promise<void> {
    await Promise.all(this.runs)
  }
}
