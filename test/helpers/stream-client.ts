/**
 * A push-stream test client over a real WebSocket (`ws`): collects decoded frames and waits for the
 * ones a test expects.
 */
import WebSocket from 'ws'
import { Unpackr } from 'msgpackr'

const unpackr = new Unpackr({ useRecords: false })

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Frame = any

export class StreamClient {
  readonly frames: Frame[] = []
  /** raw frames as received (binary ones as Buffers) */
  readonly raw: (string | Buffer)[] = []
  closed: { code: number; reason: string } | null = null
  private waiters: (() => void)[] = []

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const buf = data as Buffer
      this.raw.push(isBinary ? buf : buf.toString('utf8'))
      this.frames.push(isBinary ? unpackr.unpack(buf) : JSON.parse(buf.toString('utf8')))
      this.wake()
    })
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() }
      this.wake()
    })
  }

  private wake(): void {
    const w = this.waiters
    this.waiters = []
    for (const f of w) f()
  }

  /** Connects; rejects with the HTTP status when the upgrade is refused. */
  static connect(url: string, headers: Record<string, string> = {}): Promise<StreamClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers })
      const client = new StreamClient(ws)
      ws.once('open', () => resolve(client))
      ws.once('unexpected-response', (_req, res) => {
        let body = ''
        res.on('data', (c: Buffer) => (body += c.toString()))
        res.on('end', () =>
          reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body }))
        )
      })
      ws.once('error', reject)
    })
  }

  send(msg: unknown): void {
    this.ws.send(JSON.stringify(msg))
  }

  /** Waits for the first frame from index `from` matching `pred` (default timeout 10 s). */
  async next(pred: (f: Frame) => boolean, timeoutMs = 10_000, from = 0): Promise<Frame> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      for (let i = from; i < this.frames.length; i++) if (pred(this.frames[i])) return this.frames[i]
      if (this.closed) throw new Error(`closed (${this.closed.code} ${this.closed.reason}) before the frame arrived`)
      const left = deadline - Date.now()
      if (left <= 0)
        throw new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames).slice(0, 2000)}`)
      await new Promise<void>((r) => {
        const t = setTimeout(r, left)
        this.waiters.push(() => {
          clearTimeout(t)
          r()
        })
      })
    }
  }

  /** Waits until `n` frames match `pred`. */
  async count(pred: (f: Frame) => boolean, n: number, timeoutMs = 10_000): Promise<Frame[]> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const got = this.frames.filter(pred)
      if (got.length >= n) return got
      if (this.closed) throw new Error(`closed (${this.closed.code}) with ${got.length}/${n} frames`)
      if (Date.now() > deadline) throw new Error(`${got.length}/${n} frames within ${timeoutMs} ms`)
      await this.next(() => true, Math.max(1, deadline - Date.now()), this.frames.length).catch(() => undefined)
    }
  }

  async waitClosed(timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + timeoutMs
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('still open')
      await new Promise((r) => setTimeout(r, 20))
    }
    return this.closed
  }

  close(): void {
    this.ws.terminate()
  }
}

export const updatesOf = (channel: string) => (f: Frame) => f.type === 'update' && f.channel === channel
