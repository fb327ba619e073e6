/**
 * @module
 * The Bybit topic connections of one source. Topics are added in one place (at start and when discovery
 * finds new markets); they fill the last connection up to `perConnection` topics and ARGS_CHAR_BUDGET
 * characters of args (Bybit's limit is 21,000 per public connection), then open new ones. Each connection
 * subscribes its whole list on every open, so a reconnect resubscribes by itself, and sends Bybit's
 * app-level ping (`{"op":"ping"}`) every `pingMs`.
 */
import type { Logger } from '../../../engine/log.js'
import type { BackoffOptions } from '../feed/backoff.js'
import { FeedSocket } from '../feed/feed-socket.js'
import { ARGS_CHAR_BUDGET, argChars, pingMessage, subscribe, type SubscribePacing } from './topics.js'

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
}

interface Connection {
  readonly socket: FeedSocket
  readonly topics: string[]
  chars: number
  /** sender of the open connection, null while it is down */
  live: { send: (text: string) => void; signal: AbortSignal } | null
}

export class TopicConnections {
  private readonly conns: Connection[] = []
  private readonly runs: Promise<void>[] = []

  constructor(
    private readonly opts: TopicConnectionsOptions,
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

  private fits(conn: Connection, topic: string): boolean {
    return conn.topics.length < this.opts.perConnection && conn.chars + argChars(topic) <= ARGS_CHAR_BUDGET
  }

  /** Adds topics (subscribing at once where the connection is open); a topic already added is skipped. */
  add(topics: readonly string[]): void {
    const known = new Set(this.conns.flatMap((c) => c.topics))
    const extra: string[] = []
    let conn = this.conns.at(-1)
    const flush = (): void => {
      if (conn?.live && extra.length) void subscribe(conn.live.send, [...extra], this.opts.pacing, conn.live.signal)
      extra.length = 0
    }
    for (const topic of topics) {
      if (known.has(topic)) continue
      known.add(topic)
      if (conn === undefined || !this.fits(conn, topic)) {
        flush()
        conn = this.openConnection()
      }
      conn.topics.push(topic)
      conn.chars += argChars(topic)
      extra.push(topic)
    }
    flush()
  }

  /** A new connection; it subscribes its topic list (filled by the caller in this tick) when it opens. */
  private openConnection(): Connection {
    const conn: Connection = {
      topics: [],
      chars: 0,
      live: null,
      socket: new FeedSocket({
        url: this.opts.url,
        log: this.opts.log,
        staleMs: this.opts.staleMs,
        backoff: this.opts.backoff,
        appPing: { text: pingMessage, everyMs: this.opts.pingMs },
        onMessage: this.opts.onMessage,
        onOpen: async (send, signal) => {
          conn.live = { send, signal }
          signal.addEventListener('abort', () => (conn.live = null))
          await subscribe(send, [...conn.topics], this.opts.pacing, signal)
        }
      })
    }
    this.conns.push(conn)
    this.runs.push(conn.socket.run(this.signal))
    return conn
  }

  /** Resolves when every connection has closed for good (after the signal aborted). */
  async done(): Promise<void> {
    await Promise.all(this.runs)
  }
}
