/**
 * @module
 * Example push-stream client (docs/stream.md), using the `ws` package. It subscribes, checks that every
 * update's seq is the previous one + 1, and on a gap (or a dropped connection) resubscribes with
 * `from_seq` = the first seq it has not seen: the server replays what it missed, or sends a fresh snapshot
 * flagged `reset` when that is older than the retention window. A refused upgrade is reported with the
 * server's message: 400, 401 and 403 stop the client (retrying cannot help), 429 and 503 are retried after
 * the server's Retry-After. How to run it: docs/stream.md, "Example client".
 *
 *   TIDEWATCH_KEY=tw_live_... node dist/examples/stream-client.js trades:BTC candles:ETH:1m
 *
 * Env: TIDEWATCH_URL (default ws://127.0.0.1:8080/v1/stream), TIDEWATCH_KEY.
 */
import WebSocket from 'ws'

export interface StreamEvent {
  readonly channel: string
  readonly kind: 'snapshot' | 'update'
  readonly seq: number
  readonly data: unknown
  /** a snapshot sent because missed updates were no longer retained */
  readonly reset: boolean
}

export interface ResilientStreamOptions {
  readonly url: string
  readonly key: string
  readonly channels: readonly string[]
  readonly onEvent: (e: StreamEvent) => void
  /** called when a gap is detected or the connection dropped (for logs) */
  readonly onGap?: (channel: string, expected: number, got: number | null) => void
  /**
   * called when the server refused the upgrade (HTTP status and its error message); `retrying` is false for
   * 400, 401 and 403, after which the client has stopped
   */
  readonly onRefused?: (status: number, message: string, retrying: boolean) => void
  /** called when the connection failed or broke (server down, network); the client retries */
  readonly onError?: (err: Error) => void
  /** reconnect delay after a drop, ms (doubled up to 30 s while it keeps failing) */
  readonly retryMs?: number
}

/** Upgrade refusals that a retry cannot fix: bad parameter, no valid key, plan without streaming. */
const FATAL_STATUS = new Set([400, 401, 403])

/** The message of the API's error envelope, else the body's start. */
function errorMessage(body: string): string {
  try {
    return (JSON.parse(body) as { error: { message: string } }).error.message
  } catch {
    return body.slice(0, 200)
  }
}

interface Frame {
  type: string
  channel?: string
  seq?: number
  data?: unknown
  reset?: boolean
  code?: string
  message?: string
}

export class ResilientStream {
  /** next seq expected per channel (last seen + 1); unknown until the first snapshot */
  private readonly next = new Map<string, number>()
  private ws: WebSocket | null = null
  private stopped = false
  private delay: number

  constructor(private readonly o: ResilientStreamOptions) {
    this.delay = o.retryMs ?? 500
  }

  start(): void {
    const ws = new WebSocket(`${this.o.url}?key=${encodeURIComponent(this.o.key)}`)
    this.ws = ws
    let refused = false
    ws.on('unexpected-response', (_req, res) => {
      refused = true
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => {
        const status = res.statusCode ?? 0
        const retrying = !FATAL_STATUS.has(status)
        if (!retrying) this.stopped = true
        const retryAfterS = Number(res.headers['retry-after'])
        if (retrying && retryAfterS > 0) this.delay = Math.max(this.delay, retryAfterS * 1000)
        this.o.onRefused?.(status, errorMessage(body), retrying)
        ws.terminate()
      })
    })
    ws.on('open', () => {
      this.delay = this.o.retryMs ?? 500
      this.subscribe(this.o.channels)
    })
    ws.on('message', (raw) => this.onFrame(JSON.parse(raw.toString()) as Frame))
    ws.on('error', (err) => {
      if (!refused) this.o.onError?.(err) // 'close' follows
    })
    ws.on('close', () => {
      if (this.stopped) return
      for (const [channel, seq] of this.next) this.o.onGap?.(channel, seq, null)
      setTimeout(() => this.start(), this.delay)
      this.delay = Math.min(this.delay * 2, 30_000)
    })
  }

  stop(): void {
    this.stopped = true
    this.ws?.close()
  }

  /** Subscribes, resuming each channel already seen from the first seq not received. */
  private subscribe(channels: readonly string[]): void {
    const list = channels.map((channel) => {
      const from = this.next.get(channel)
      return from === undefined ? channel : { channel, from_seq: from }
    })
    this.ws?.send(JSON.stringify({ op: 'subscribe', channels: list }))
  }

  private onFrame(f: Frame): void {
    if (f.type === 'error' || (f.type === 'ack' && (f as { errors?: unknown[] }).errors?.length)) {
      console.error('stream:', JSON.stringify(f))
      return
    }
    if ((f.type !== 'snapshot' && f.type !== 'update') || !f.channel || f.seq === undefined) return
    const channel = f.channel
    if (f.type === 'snapshot') {
      this.next.set(channel, f.seq + 1)
      this.o.onEvent({ channel, kind: 'snapshot', seq: f.seq, data: f.data, reset: f.reset === true })
      return
    }
    const expected = this.next.get(channel)
    if (expected !== undefined && f.seq < expected) return // already seen (a replay overlapping live data)
    if (expected !== undefined && f.seq > expected) {
      // a gap: ask for what is missing; updates until then are dropped and come back in the replay
      this.o.onGap?.(channel, expected, f.seq)
      this.subscribe([channel])
      return
    }
    this.next.set(channel, f.seq + 1)
    this.o.onEvent({ channel, kind: 'update', seq: f.seq, data: f.data, reset: false })
  }
}

function main(): void {
  const channels = process.argv.slice(2)
  const key = process.env['TIDEWATCH_KEY']
  if (!key || channels.length === 0) {
    console.error('usage: TIDEWATCH_KEY=... node dist/examples/stream-client.js <channel> [channel...]')
    process.exit(2)
  }
  new ResilientStream({
    url: process.env['TIDEWATCH_URL'] ?? 'ws://127.0.0.1:8080/v1/stream',
    key,
    channels,
    onEvent: (e) =>
      console.log(
        `${e.channel} ${e.kind}${e.reset ? ' (reset)' : ''} seq=${e.seq} ${JSON.stringify(e.data).slice(0, 160)}`
      ),
    onGap: (channel, expected, got) =>
      console.error(
        `${channel}: expected seq ${expected}, ${got === null ? 'connection dropped' : `got ${got}`}; resuming`
      ),
    onRefused: (status, message, retrying) => {
      console.error(`stream: the server refused the connection (${status}): ${message}${retrying ? '; retrying' : ''}`)
      if (!retrying) process.exitCode = 1
    },
    onError: (err) => console.error(`stream: ${err.message}; retrying`)
  }).start()
}

if (import.meta.url === `file://${process.argv[1]}`) main()
