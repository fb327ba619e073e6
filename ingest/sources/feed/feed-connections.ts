/**
 * @module
 * The WebSocket connections of one venue source, each subscribed to its share of the source's items
 * (streams, topics, args). Items are added in one place (at start and when discovery finds new markets):
 * they fill the last connection up to `perConnection` items (and, where the venue limits it, a per-
 * connection `budget`), then open new ones. Items added to an open connection are subscribed at once; each
 * connection subscribes its whole list on every open, so a reconnect resubscribes by itself. The venue
 * supplies the subscribe messages and its socket options (keepalive, connection rate limit).
 */
import { FeedSocket, type FeedSocketOptions } from './feed-socket.js'
import type { ConnectionSet } from './feed-status.js'

export interface FeedConnectionsOptions<T> {
  /** every connection's socket options; `onOpen` is this set's (it subscribes) */
  readonly socket: Omit<FeedSocketOptions, 'onOpen'>
  /** most items on one connection */
  readonly perConnection: number
  /** sends (paced) subscribe messages for `items` on an open connection; stops when `signal` aborts */
  readonly subscribe: (send: (text: string) => void, items: readonly T[], signal: AbortSignal) => Promise<void>
  /** a second per-connection limit, e.g. Bybit's characters of args: what an item costs and the most per connection */
  readonly budget?: { readonly cost: (item: T) => number; readonly max: number }
  /** when set, an item whose key was added before is skipped */
  readonly key?: (item: T) => string
  /**
   * Called when a connection opens again (not on its first open), before it subscribes, with its items:
   * Bybit and OKX mark the reopen in their raw queue so trades missed while it was down are fetched.
   */
  readonly onReopen?: (items: readonly T[]) => void
}

interface Connection<T> {
  readonly socket: FeedSocket
  readonly items: T[]
  /** budget spent by `items` */
  cost: number
  /** sender of the open connection, null while it is down */
  live: { send: (text: string) => void; signal: AbortSignal } | null
}

export class FeedConnections<T> implements ConnectionSet {
  private readonly conns: Connection<T>[] = []
  private readonly runs: Promise<void>[] = []
  private readonly known = new Set<string>()

  constructor(
    private readonly opts: FeedConnectionsOptions<T>,
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

  private fits(conn: Connection<T>, item: T): boolean {
    const budget = this.opts.budget
    return (
      conn.items.length < this.opts.perConnection &&
      (budget === undefined || conn.cost + budget.cost(item) <= budget.max)
    )
  }

  /** Adds items to the connections (subscribing at once where a connection is open). */
  add(items: readonly T[]): void {
    const extra: T[] = []
    let conn = this.conns.at(-1)
    const flush = (): void => {
      if (conn?.live && extra.length) void this.opts.subscribe(conn.live.send, [...extra], conn.live.signal)
      extra.length = 0
    }
    for (const item of items) {
      if (this.opts.key) {
        const key = this.opts.key(item)
        if (this.known.has(key)) continue
        this.known.add(key)
      }
      if (conn === undefined || !this.fits(conn, item)) {
        flush()
        conn = this.openConnection()
      }
      conn.items.push(item)
      conn.cost += this.opts.budget?.cost(item) ?? 0
      extra.push(item)
    }
    flush()
  }

  /** A new connection; it subscribes its list (filled by `add` in this tick, before any open) when it opens. */
  private openConnection(): Connection<T> {
    let opens = 0
    const conn: Connection<T> = {
      items: [],
      cost: 0,
      live: null,
      socket: new FeedSocket({
        ...this.opts.socket,
        onOpen: async (send, signal) => {
          conn.live = { send, signal }
          signal.addEventListener('abort', () => (conn.live = null))
          if (opens++ > 0) this.opts.onReopen?.([...conn.items])
          await this.opts.subscribe(send, [...conn.items], signal)
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
