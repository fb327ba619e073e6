/**
 * @module
 * JSON-RPC over one persistent WebSocket to a node (`<ENV>_WS_URL`), with the lean client's contract
 * (raw-rpc.ts `call`): a request serialized once with JSON.stringify, the answer parsed once, a JSON-RPC
 * error answer thrown as viem's `RpcRequestError` (its `cause` the node's error object), every failure of
 * the way to the node as viem's `WebSocketRequestError` (a transport error to the chain client).
 *
 * The socket opens on the first call and again on the first call after it closed; requests in flight when
 * it closes fail. Answers are matched to requests by id, so concurrent calls share the one connection.
 * No compression is offered (the node would spend CPU on every 17 KB simulation).
 */
import { RpcRequestError, WebSocketRequestError } from 'viem'
import WebSocket from 'ws'
import { MAX_ANSWER_BYTES, requestText, type LeanRpc, type RpcParams } from './raw-rpc.js'

/**
 * Requests in flight on one socket at most; one more fails at once (a transport error). The honeypot
 * checks hold at most SIMULATIONS_AT_ONCE (8) simulations and one head read per chain, far below.
 */
export const WS_MAX_IN_FLIGHT = 1_024

interface Pending {
  readonly method: string
  readonly params: RpcParams
  readonly resolve: (result: unknown) => void
  readonly reject: (err: Error) => void
  readonly timer: NodeJS.Timeout
}

interface RpcAnswer {
  readonly id?: unknown
  readonly result?: unknown
  readonly error?: { code: number; message: string; data?: unknown }
}

export class WsRpc implements LeanRpc {
  private socket: WebSocket | null = null
  private opening: Promise<WebSocket> | null = null
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  /** the URL without credentials or path, for errors (paths often carry provider keys) */
  private readonly shown: string

  /**
   * @param url the node's ws(s) URL
   * @param timeoutMs the connection's opening, and each request's answer, within this time, ms
   */
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number
  ) {
    const u = new URL(url)
    this.shown = `${u.protocol}//${u.host}`
  }

  /**
   * One JSON-RPC request: `params` serialized here unless given as text (quantities must already be hex
   * strings: no bigint), the answer's `result`; a JSON-RPC error answer throws RpcRequestError, transport
   * failures WebSocketRequestError.
   */
  async call<T>(method: string, params: RpcParams): Promise<T> {
    if (this.pending.size >= WS_MAX_IN_FLIGHT) throw this.failure(`more than ${WS_MAX_IN_FLIGHT} requests in flight`)
    const socket = await this.open()
    const id = this.nextId++
    if (this.nextId > Number.MAX_SAFE_INTEGER) this.nextId = 1
    const text = requestText(id, method, params)
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(this.failure(`no answer within ${this.timeoutMs} ms`))
      }, this.timeoutMs)
      this.pending.set(id, { method, params, resolve: resolve as (r: unknown) => void, reject, timer })
      socket.send(text, (err) => {
        if (err) this.settle(id, this.failure(err.message, err))
      })
    })
  }

  /** closes the socket; calls in flight fail, later calls open it again */
  async close(): Promise<void> {
    const s = this.socket
    this.socket = null
    if (!s) return
    await new Promise<void>((resolve) => {
      if (s.readyState === WebSocket.CLOSED) return resolve()
      s.once('close', () => resolve())
      s.close()
    })
  }

  private open(): Promise<WebSocket> {
    if (this.socket?.readyState === WebSocket.OPEN) return Promise.resolve(this.socket)
    this.opening ??= new Promise<WebSocket>((resolve, reject) => {
      const s = new WebSocket(this.url, {
        perMessageDeflate: false,
        maxPayload: MAX_ANSWER_BYTES,
        handshakeTimeout: this.timeoutMs
      })
      s.on('message', (data: Buffer) => this.answer(data))
      s.once('open', () => {
        this.socket = s
        resolve(s)
      })
      s.on('error', (err) => reject(this.failure(err.message, err)))
      s.once('close', () => {
        if (this.socket === s) this.socket = null
        reject(this.failure('the connection closed before it opened'))
        this.failAll(this.failure('the connection closed'))
      })
    }).finally(() => (this.opening = null))
    return this.opening
  }

  private answer(data: Buffer): void {
    let a: RpcAnswer
    try {
      a = JSON.parse(data.toString('utf8')) as RpcAnswer
    } catch {
      return // not an answer of ours (a node sends nothing else unasked without a subscription)
    }
    if (typeof a.id !== 'number') return
    const p = this.pending.get(a.id)
    if (!p) return // answered after its timeout
    if (a.error !== undefined)
      this.settle(
        a.id,
        new RpcRequestError({ body: { method: p.method, params: p.params }, error: a.error, url: this.shown })
      )
    else this.settle(a.id, null, a.result)
  }

  private settle(id: number, err: Error | null, result?: unknown): void {
    const p = this.pending.get(id)
    if (!p) return
    this.pending.delete(id)
    clearTimeout(p.timer)
    if (err) p.reject(err)
    else p.resolve(result)
  }

  private failAll(err: Error): void {
    for (const id of [...this.pending.keys()]) this.settle(id, err)
  }

  private failure(details: string, cause?: Error): WebSocketRequestError {
    return new WebSocketRequestError({ url: this.shown, details, ...(cause ? { cause } : {}) })
  }
}
