/**
 * @module
 * One venue WebSocket that stays up: connects, lets the venue adapter subscribe on every open (first
 * connect and each reconnect), answers server pings with pongs (the `ws` client does so by itself, as
 * Binance requires within 10 minutes), pings the server itself when the line goes quiet (a ping frame, or
 * the venue's text ping such as OKX's `ping`), sends a venue's periodic application-level ping where it
 * wants one (`appPing`, Bybit's `{"op":"ping"}`), and treats a connection without any frame for `staleMs`
 * as dead (stale feed): it is terminated and reopened after an exponential backoff with full jitter. It
 * never throws; failures are logged and counted.
 */
import type WebSocket from 'ws'
import type { Logger } from '../../../engine/log.js'
import { DEFAULT_BACKOFF, reconnectDelayMs, sleep, type BackoffOptions } from '../../../engine/runtime/backoff.js'

/** A connection that stayed up this long resets the backoff to its first step. */
const STABLE_MS = 30_000

export interface FeedSocketOptions {
  readonly url: string
  readonly log: Logger
  /** Called on every open; send subscriptions here. `signal` aborts when this connection closes. */
  readonly onOpen: (send: (text: string) => void, signal: AbortSignal) => Promise<void> | void
  readonly onMessage: (text: string, recvTs: number) => void
  /** no frame for this long: the connection is stale and reopened; half of it without a frame sends a ping. @default 30_000 */
  readonly staleMs?: number
  readonly backoff?: BackoffOptions
  /** @default 10_000 */
  readonly handshakeTimeoutMs?: number
  /**
   * An application-level ping sent every `everyMs` while the connection is open, for venues that want a
   * JSON ping rather than (or besides) WebSocket ping frames (Bybit: `{"op":"ping"}` every 20 s). Its answer
   * arrives as an ordinary message. Unset: none.
   */
  readonly appPing?: { readonly text: () => string; readonly everyMs: number }
  /**
   * App-level keepalive for venues that want a text message instead of a WebSocket ping frame (OKX: the
   * text `ping`, answered with the text `pong`). Unset: a protocol ping frame.
   */
  readonly pingText?: string
  /**
   * no frame for this long sends a ping, ms; when set, the line is checked every tenth of it, so the ping
   * goes out within 110% of it (OKX: ping after 25 s, before its 30 s cut-off). @default staleMs / 2
   */
  readonly pingAfterMs?: number
  /**
   * Awaited before every connection attempt, e.g. a shared limiter for a venue's connection rate (OKX
   * allows 3 new connections a second per IP). False: give up (the run is ending).
   */
  readonly beforeConnect?: (signal: AbortSignal) => Promise<boolean>
}

export class FeedSocket {
  connected = false
  /** reopened connections (after drops, failures and stale detection) */
  reconnects = 0
  /** connections closed because nothing arrived for `staleMs` */
  stale = 0
  /** receive time of the last frame of any kind (message, ping, pong), epoch ms */
  lastFrameTs = 0

  constructor(private readonly opts: FeedSocketOptions) {}

  /** Keeps the connection up until `signal` aborts; resolves once the last socket is closed. */
  async run(signal: AbortSignal): Promise<void> {
    let attempt = 0
    while (!signal.aborted) {
      if (this.opts.beforeConnect && !(await this.opts.beforeConnect(signal))) break
      if (signal.aborted) break
      const upMs = await this.connectOnce(signal)
      if (signal.aborted) break
      if (upMs >= STABLE_MS) attempt = 0
      const delay = reconnectDelayMs(attempt++, this.opts.backoff ?? DEFAULT_BACKOFF)
      this.opts.log.warn({ url: this.opts.url, up_ms: upMs, retry_in_ms: delay }, 'venue socket closed, reconnecting')
      await sleep(delay, signal)
      if (!signal.aborted) this.reconnects++
    }
  }

  /** One connection; resolves with how long it was open (0 if it never opened). */
  private async connectOnce(signal: AbortSignal): Promise<number> {
    // the ws package is loaded by a venue's first connection, not at every start (venue modules all load)
    const { default: Socket } = await import('ws')
    if (signal.aborted) return 0
    const staleMs = this.opts.staleMs ?? 30_000
    const pingAfterMs = this.opts.pingAfterMs ?? staleMs / 2
    const pingText = this.opts.pingText
    return new Promise((resolve) => {
      const conn = new AbortController()
      let openedAt = 0
      let heartbeat: NodeJS.Timeout | undefined
      let appPinger: NodeJS.Timeout | undefined
      const ws = new Socket(this.opts.url, {
        handshakeTimeout: this.opts.handshakeTimeoutMs ?? 10_000,
        perMessageDeflate: false
      })
      const onAbort = (): void => ws.terminate()
      signal.addEventListener('abort', onAbort)
      const frame = (): void => {
        this.lastFrameTs = Date.now()
      }
      ws.on('open', () => {
        openedAt = Date.now()
        this.connected = true
        frame()
        heartbeat = setInterval(
          () => {
            const idle = Date.now() - this.lastFrameTs
            if (idle >= staleMs) {
              this.stale++
              this.opts.log.warn({ url: this.opts.url, idle_ms: idle }, 'venue socket stale, reopening')
              ws.terminate()
            } else if (idle >= pingAfterMs) {
              if (pingText === undefined) ws.ping()
              else ws.send(pingText)
            }
          },
          Math.max(10, Math.floor(Math.min(staleMs / 4, this.opts.pingAfterMs ? pingAfterMs / 10 : Infinity)))
        )
        const send = (text: string): void => {
          if (ws.readyState === Socket.OPEN) ws.send(text)
        }
        const appPing = this.opts.appPing
        if (appPing) appPinger = setInterval(() => send(appPing.text()), appPing.everyMs)
        Promise.resolve()
          .then(() => this.opts.onOpen(send, conn.signal))
          .catch((err: unknown) => {
            this.opts.log.warn({ url: this.opts.url, err: (err as Error).message }, 'subscribe failed, reopening')
            ws.terminate()
          })
      })
      ws.on('message', (data: WebSocket.RawData) => {
        frame()
        // binaryType is 'nodebuffer': one Buffer per message
        this.opts.onMessage((data as Buffer).toString(), this.lastFrameTs)
      })
      ws.on('ping', frame) // the client library answers with a pong itself
      ws.on('pong', frame)
      ws.on('error', (err) => this.opts.log.warn({ url: this.opts.url, err: err.message }, 'venue socket error'))
      ws.on('close', () => {
        this.connected = false
        clearInterval(heartbeat)
        clearInterval(appPinger)
        conn.abort()
        signal.removeEventListener('abort', onAbort)
        resolve(openedAt ? Date.now() - openedAt : 0)
      })
    })
  }
}
