/**
 * @module
 * Deribit JSON-RPC 2.0 over one WebSocket that stays up (feed/feed-socket.ts: reconnect with backoff and
 * jitter, stale detection). On every open it sends `public/set_heartbeat`, so the venue sends `heartbeat`
 * notifications and `test_request`s; each `test_request` is answered with `public/test` at once (Deribit
 * closes a connection that does not answer). Requests carry increasing ids; an answer is matched to its
 * request by id and queued for the normalizer under the request's channel (`/<method>?<params>`), so it is
 * read, recorded and replayed like a REST answer. Heartbeats are watched at the application level too: a
 * connection that still answers WebSocket pings but has sent no JSON-RPC message (heartbeat, answer) for
 * `staleMs` is closed and reopened like a silent one. A request without an answer (timeout, or the connection
 * closed first) resolves to null and is counted. Error 10028 (`too_many_requests`, after which Deribit
 * closes the session) pauses every request until the credits have refilled.
 */
import type { Logger } from '../../../engine/log.js'
import { DERIBIT_PATHS } from '../../normalize/deribit-instruments.js'
import { WS_CHANNEL } from '../../normalize/normalizer.js'
import type { BackoffOptions } from '../../../engine/runtime/backoff.js'
import { FeedSocket } from '../feed/feed-socket.js'
import type { RawQueue } from '../feed/raw-queue.js'
import type { WeightLimiter } from '../feed/weight-limiter.js'

/** Longest wait for an answer, ms. */
const REQUEST_TIMEOUT_MS = 10_000
/** Requests awaiting an answer at once; the pollers send a few at a time, more means the line is stuck. */
const MAX_PENDING = 100
/** Deribit's "too_many_requests": the session is closed and credits must refill. */
export const TOO_MANY_REQUESTS = 10_028
/** Pause after a 10028, ms: an empty default pool (50,000 credits) refills in 5 s at 10,000 credits/s. */
export const RATE_LIMIT_PAUSE_MS = 10_000

export type RpcParams = Readonly<Record<string, string | number | boolean>>

export interface RpcAnswer {
  readonly text: string
  /** JSON-RPC error code, null for a result */
  readonly error: number | null
}

interface Pending {
  readonly channel: string
  readonly resolve: (answer: RpcAnswer | null) => void
  readonly timer: NodeJS.Timeout
  /** aborts when the connection the request went out on closes */
  readonly conn: AbortSignal
}

interface Live {
  readonly send: (text: string) => void
  readonly signal: AbortSignal
}

export interface RpcSocketOptions {
  /** full endpoint, e.g. wss://www.deribit.com/ws/api/v2 */
  readonly url: string
  readonly log: Logger
  readonly queue: RawQueue
  /** every request takes one unit from it (Deribit's credits are per request) */
  readonly limiter: WeightLimiter
  /** `public/set_heartbeat` interval, s (Deribit's minimum is 10) */
  readonly heartbeatSec: number
  readonly staleMs: number
  readonly backoff: BackoffOptions
  /** @default REQUEST_TIMEOUT_MS */
  readonly requestTimeoutMs?: number
  /** @default RATE_LIMIT_PAUSE_MS */
  readonly rateLimitPauseMs?: number
}

/** Channel of a request: the method as a path with its params as the query, e.g. `/public/test`. */
export function rpcChannel(method: string, params: RpcParams = {}): string {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()
  return query ? `/${method}?${query}` : `/${method}`
}

export class RpcSocket {
  readonly socket: FeedSocket
  /** requests that got no answer (timeout, connection closed, too many pending) */
  failed = 0
  /** `too_many_requests` answers */
  rateLimited = 0
  /** `test_request`s answered */
  testRequests = 0
  /** connections closed because no JSON-RPC message (heartbeat or answer) came for `staleMs` */
  stale = 0
  /** receive time of the last JSON-RPC message, epoch ms */
  private lastMessageTs = 0
  /** the open connection, once its heartbeats are set (requests wait for it) */
  private live: Live | null = null
  /** the open connection, from its first moment */
  private current: Live | null = null
  private readonly openWaiters = new Set<() => void>()
  private readonly pending = new Map<number, Pending>()
  private nextId = 1

  constructor(private readonly opts: RpcSocketOptions) {
    this.socket = new FeedSocket({
      url: opts.url,
      log: opts.log,
      staleMs: opts.staleMs,
      backoff: opts.backoff,
      onMessage: (text, recvTs) => this.onMessage(text, recvTs),
      onOpen: (send, signal) => this.onOpen(send, signal)
    })
  }

  /** true while a connection is open and its heartbeats are set */
  get connected(): boolean {
    return this.live !== null
  }

  /** Keeps the connection up until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    const wake = (): void => this.wakeWaiters()
    signal.addEventListener('abort', wake, { once: true })
    return this.socket.run(signal).finally(() => signal.removeEventListener('abort', wake))
  }

  /**
   * Sends a request once credits allow and a connection is open (waiting for both); resolves with the
   * answer, or null without one (never throws).
   */
  async call(method: string, params: RpcParams, signal: AbortSignal): Promise<RpcAnswer | null> {
    if (!(await this.opts.limiter.take(1, signal))) return null
    const live = await this.whenOpen(signal)
    return live === null ? null : this.send(live, method, params)
  }

  private send(live: Live, method: string, params: RpcParams): Promise<RpcAnswer | null> {
    if (this.pending.size >= MAX_PENDING || live.signal.aborted) {
      this.failed++
      return Promise.resolve(null)
    }
    const id = this.nextId++
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, null), this.opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS)
      this.pending.set(id, { channel: rpcChannel(method, params), resolve, timer, conn: live.signal })
      live.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  private settle(id: number, answer: RpcAnswer | null): void {
    const p = this.pending.get(id)
    if (p === undefined) return
    this.pending.delete(id)
    clearTimeout(p.timer)
    if (answer === null) this.failed++
    p.resolve(answer)
  }

  private whenOpen(signal: AbortSignal): Promise<Live | null> {
    if (this.live !== null) return Promise.resolve(this.live)
    if (signal.aborted) return Promise.resolve(null)
    return new Promise((resolve) => {
      const done = (): void => {
        this.openWaiters.delete(done)
        signal.removeEventListener('abort', done)
        resolve(signal.aborted ? null : this.live)
      }
      this.openWaiters.add(done)
      signal.addEventListener('abort', done)
    })
  }

  private wakeWaiters(): void {
    for (const w of [...this.openWaiters]) w()
  }

  /** Every open (first connect and each reconnect): heartbeats on, then requests flow. */
  private async onOpen(send: (text: string) => void, signal: AbortSignal): Promise<void> {
    const live: Live = { send, signal }
    this.current = live
    signal.addEventListener('abort', () => {
      if (this.live === live) this.live = null
      if (this.current === live) this.current = null
      for (const [id, p] of this.pending) if (p.conn === signal) this.settle(id, null)
    })
    // through the credit queue, so a reconnect after too_many_requests waits out the pause
    if (!(await this.opts.limiter.take(1, signal))) return
    const answer = await this.send(live, 'public/set_heartbeat', { interval: this.opts.heartbeatSec })
    if (signal.aborted) return
    // without heartbeats a silent line could not be told from a dead one: reopen and try again
    if (answer === null || answer.error !== null) throw new Error('public/set_heartbeat failed')
    this.live = live
    this.wakeWaiters()
    await this.watchHeartbeats(signal)
  }

  /**
   * Resolves when the connection closes; rejects (FeedSocket then closes and reopens it) when no JSON-RPC
   * message arrived for `staleMs`, even if the socket still answers pings.
   */
  private watchHeartbeats(signal: AbortSignal): Promise<void> {
    const staleMs = this.opts.staleMs
    return new Promise((resolve, reject) => {
      const timer = setInterval(
        () => {
          if (Date.now() - this.lastMessageTs < staleMs) return
          clearInterval(timer)
          this.stale++
          reject(new Error(`no heartbeat or answer for ${staleMs} ms`))
        },
        Math.max(10, Math.floor(staleMs / 4))
      )
      signal.addEventListener('abort', () => {
        clearInterval(timer)
        resolve()
      })
    })
  }

  private onMessage(text: string, recvTs: number): void {
    let msg: { id?: unknown; method?: unknown; params?: { type?: unknown }; error?: { code?: unknown } } | null
    try {
      msg = JSON.parse(text) as typeof msg
    } catch {
      this.opts.queue.push({ channel: WS_CHANNEL, text, recvTs }) // counted as a parse error by the pump
      return
    }
    this.lastMessageTs = recvTs
    const p = typeof msg?.id === 'number' ? this.pending.get(msg.id) : undefined
    // queued before the request settles, so the normalizer sees answers in arrival order
    this.opts.queue.push({ channel: p?.channel ?? WS_CHANNEL, text, recvTs })
    if (msg?.method === 'heartbeat' && msg.params?.type === 'test_request') this.answerTestRequest()
    if (p === undefined) return
    const code = typeof msg?.error?.code === 'number' ? msg.error.code : msg?.error !== undefined ? -1 : null
    if (code === TOO_MANY_REQUESTS) {
      this.rateLimited++
      this.opts.limiter.pauseUntil(recvTs + (this.opts.rateLimitPauseMs ?? RATE_LIMIT_PAUSE_MS))
      this.opts.log.warn({ channel: p.channel }, 'deribit too_many_requests, pausing requests')
    }
    this.settle(msg!.id as number, { text, error: code })
  }

  /** Answers at once, outside the credit queue: a late answer costs the connection. */
  private answerTestRequest(): void {
    const live = this.current
    if (live === null) return
    this.testRequests++
    void this.send(live, DERIBIT_PATHS.test.slice(1), {})
  }
}
