/**
 * @module
 * The OKX public WebSocket connections of one source. Subscription args are added in one place (at start
 * and when discovery finds new instruments): they fill the last connection up to `perConnection`, then
 * open new ones. Each connection subscribes its whole list on every open, so a reconnect resubscribes by
 * itself. New connections wait for a shared limiter (OKX: 3 connection attempts per second per IP).
 * Keepalive is OKX's text `ping` after `pingAfterMs` of silence (OKX closes a connection silent for 30 s);
 * the text `pong` answer is taken off the line here and never reaches the normalizer.
 */
import type { Logger } from '../../../engine/log.js'
import type { BackoffOptions } from '../feed/backoff.js'
import { FeedSocket } from '../feed/feed-socket.js'
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
}

interface Connection {
  readonly socket: FeedSocket
  readonly args: OkxArg[]
  /** sender of the open connection, null while it is down */
  live: { send: (text: string) => void; signal: AbortSignal } | null
}

export class OkxConnections {
  private readonly conns: Connection[] = []
  private readonly runs: Promise<void>[] = []
  private readonly connects = new WeightLimiter(CONNECTS_PER_MINUTE, 2)
  /** `pong` answers to our keepalive pings */
  pongs = 0

  constructor(
    private readonly opts: OkxConnectionsOptions,
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

  /** Adds args to the connections (subscribing at once where a connection is open). */
  add(args: readonly OkxArg[]): void {
    let i = 0
    const last = this.conns.at(-1)
    if (last && last.args.length < this.opts.perConnection) {
      const extra = args.slice(0, this.opts.perConnection - last.args.length)
      last.args.push(...extra)
      i = extra.length
      if (last.live) void subscribe(last.live.send, extra, this.opts.pacing, last.live.signal)
    }
    for (; i < args.length; i += this.opts.perConnection)
      this.openConnection(args.slice(i, i + this.opts.perConnection))
  }

  private openConnection(args: OkxArg[]): void {
    const conn: Connection = {
      args,
      live: null,
      socket: new FeedSocket({
        url: this.opts.url,
        log: this.opts.log,
        staleMs: this.opts.staleMs,
        pingAfterMs: this.opts.pingAfterMs,
        pingText: 'ping',
        backoff: this.opts.backoff,
        beforeConnect: (signal) => this.connects.take(1, signal),
        onMessage: (text, recvTs) => {
          // the keepalive answer is plain text, not JSON: protocol chatter, not a parse error
          if (text === 'pong') this.pongs++
          else this.opts.onMessage(text, recvTs)
        },
        onOpen: async (send, signal) => {
          conn.live = { send, signal }
          signal.addEventListener('abort', () => (conn.live = null))
          await subscribe(send, conn.args, this.opts.pacing, signal)
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
