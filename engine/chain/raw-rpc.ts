/**
 * @module
 * A lean JSON-RPC client for the large calls of node intelligence (the wallet simulation's eth_simulateV1:
 * a 17 KB request, a 28 KB answer): an undici `Pool` with kept-alive connections, a POST of a body serialized
 * once with JSON.stringify, the answer read by a dispatch handler (no response stream) and parsed once.
 * viem still encodes the calls (engine/nodeintel/wallet-sim.ts); its http transport, built for many small
 * calls (fetch, a Response object and a stream per request, the body re-serialized with its own replacer),
 * costs about 2-3 ms of CPU per such call on a loaded 2-core machine, this client under 1 ms (docs/node-intel.md,
 * "Performance"). The chain client (chain-client.ts) gives every node one, beside its viem clients; the
 * node benchmark (bench/node) uses it for the bare references.
 *
 * Failures are classified as viem's http transport classifies them: no answer, a refused connection, an
 * unreadable or non-JSON body, or an HTTP error status without a JSON-RPC error object → viem
 * `HttpRequestError` (a transport error to the chain client); an HTTP error status carrying a JSON-RPC error
 * object is the node's own answer and is returned like any other. `call` throws a JSON-RPC error answer as
 * viem's `RpcRequestError` (its `cause` the node's error object), as viem's transport does.
 */
import { HttpRequestError, RpcRequestError } from 'viem'
import { Pool } from 'undici'

/** Largest answer read, bytes (viem's http transport default). */
export const MAX_ANSWER_BYTES = 10_485_760
/** Connections kept per node at most; more concurrent requests queue in the pool. */
const CONNECTIONS = 32

/**
 * JSON-RPC params already serialized: the text of a JSON array, sent as it is. A request whose large parts
 * do not change between calls (the wallet simulation's probe code) keeps their text and splices it in,
 * instead of serializing them again on every call. `toJSON` gives the array back (viem's errors and
 * transports serialize it as the params themselves).
 */
export class JsonParams {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}

/** A request's params: values serialized with the request (quantities as hex strings: no bigint), or text. */
export type RpcParams = readonly unknown[] | JsonParams

/** One JSON-RPC request's text: the bytes `JSON.stringify({ jsonrpc, id, method, params })` writes. */
export function requestText(id: number, method: string, params: RpcParams): string {
  return params instanceof JsonParams
    ? `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${params.text}}`
    : JSON.stringify({ jsonrpc: '2.0', id, method, params })
}

/**
 * Reads a call's result from the whole text of a 2xx answer without parsing all of it (the wallet
 * simulation's answer: engine/nodeintel/sim-answer.ts), for calls that use a small part of a large answer.
 * `undefined` when the text is not a plain success answer of the shape it reads: the answer is then parsed
 * whole and handled as any other (an error answer throws), and the call gives the parsed `result`. The
 * caller tells the two apart by what the picker returns (its own class).
 */
export type AnswerPicker = (text: string) => unknown

/** What the lean calls need of a node's client: this http one, or the WebSocket one (ws-rpc.ts). */
export interface LeanRpc {
  /**
   * one JSON-RPC request; a JSON-RPC error answer throws RpcRequestError, a failure of the way a transport
   * error; `pick`: what it reads from the answer's text, when it reads it (over http only), else the parsed
   * `result`
   */
  call<T>(method: string, params: RpcParams, pick?: AnswerPicker): Promise<T>
  close(): Promise<void>
}

export class RawRpc implements LeanRpc {
  private pool: Pool | null = null
  private readonly origin: string
  private readonly path: string
  private readonly headers: Record<string, string>
  /** the URL without credentials, for errors */
  private readonly shown: string

  /**
   * @param url the node's http(s) JSON-RPC URL (credentials in it become Basic authorization, as viem does)
   * @param timeoutMs no answer headers (or no body progress) within this time fails the request, ms
   */
  constructor(
    url: string,
    private readonly timeoutMs: number
  ) {
    const u = new URL(url)
    this.headers = { 'content-type': 'application/json' }
    if (u.username) {
      const credentials = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`
      this.headers['authorization'] = `Basic ${btoa(credentials)}`
      u.username = ''
      u.password = ''
    }
    this.origin = u.origin
    this.path = `${u.pathname}${u.search}`
    this.shown = u.toString()
  }

  /** POSTs `body` (one JSON-RPC request, already serialized, text or UTF-8 bytes); the node's parsed JSON answer. */
  post(body: string | Buffer): Promise<unknown> {
    return this.send(body, (status, text) => this.read(status, text))
  }

  /** POSTs `body`; the promise settles with what `onAnswer` makes of the answer's status and text (or what it throws) */
  private send<T>(body: string | Buffer, onAnswer: (status: number, text: string) => T): Promise<T> {
    this.pool ??= new Pool(this.origin, {
      connections: CONNECTIONS,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connectTimeout: this.timeoutMs
    })
    const pool = this.pool
    return new Promise<T>((resolve, reject) => {
      const failed = (cause: Error): void =>
        reject(new HttpRequestError({ url: this.shown, cause, details: cause.message }))
      try {
        pool.dispatch(
          { path: this.path, method: 'POST', headers: this.headers, body },
          new AnswerReader((answer) => {
            try {
              resolve(onAnswer(answer.status, answer.text))
            } catch (err) {
              reject(err)
            }
          }, failed)
        )
      } catch (cause) {
        failed(cause as Error)
      }
    })
  }

  /** an answer's status and text as `post` gives them: the parsed JSON, or the transport error it is */
  private read(status: number, text: string): unknown {
    let data: unknown
    try {
      data = JSON.parse(text || '{}')
    } catch (cause) {
      if (status >= 200 && status < 300) {
        throw new HttpRequestError({ url: this.shown, status, cause: cause as Error, details: 'invalid JSON' })
      }
      data = { error: text }
    }
    if (status < 200 || status >= 300) {
      if (isRpcError(data)) return data
      throw new HttpRequestError({ url: this.shown, status, details: text.slice(0, 200) || `HTTP ${status}` })
    }
    return data
  }

  /**
   * One JSON-RPC request: `params` serialized here unless given as text (quantities must already be hex
   * strings: no bigint), the answer's `result`; a JSON-RPC error answer throws RpcRequestError, transport
   * failures HttpRequestError. With `pick`, a 2xx answer's text is given to it first (AnswerPicker).
   */
  call<T>(method: string, params: RpcParams, pick?: AnswerPicker): Promise<T> {
    let body: string
    try {
      body = requestText(1, method, params)
    } catch (err) {
      return Promise.reject(err) // params that do not serialize (a bigint)
    }
    return this.send(body, (status, text): T => {
      if (pick && status >= 200 && status < 300) {
        const picked = pick(text)
        if (picked !== undefined) return picked as T
      }
      const answer = this.read(status, text) as {
        result?: unknown
        error?: { code: number; message: string; data?: unknown }
      }
      if (answer.error !== undefined)
        throw new RpcRequestError({ body: { method, params }, error: answer.error, url: this.shown })
      return answer.result as T
    })
  }

  /** closes the kept-alive connections (idle ones also close by themselves after a few seconds) */
  async close(): Promise<void> {
    const p = this.pool
    this.pool = null
    await p?.close()
  }
}

function isRpcError(data: unknown): boolean {
  const e = (data as { error?: { code?: unknown; message?: unknown } } | null)?.error
  return typeof e?.code === 'number' && typeof e.message === 'string'
}

/**
 * Collects one answer as undici's core delivers it (no response stream per request): the status and the
 * body as UTF-8 text, at most MAX_ANSWER_BYTES (beyond: the request is aborted, an error). It speaks the
 * core's own handler interface (onConnect, onHeaders, onData, onComplete, onError): a handler with the
 * newer `onRequestStart`/`onResponseStart` methods is wrapped per request by undici (a wrapper and its
 * controller, and the answer's headers parsed into an object), as server/webhooks/answer-handler.ts notes.
 */
export class AnswerReader {
  private status = 0
  private readonly parts: Buffer[] = []
  private size = 0
  private abort: ((reason?: Error) => void) | null = null
  private done = false

  constructor(
    private readonly resolve: (a: { status: number; text: string }) => void,
    private readonly reject: (err: Error) => void
  ) {}

  onConnect(abort: (reason?: Error) => void): void {
    this.abort = abort
  }

  onHeaders(statusCode: number): boolean {
    if (statusCode >= 200) this.status = statusCode // 1xx: informational, the answer is still to come
    return true
  }

  onData(chunk: Buffer): boolean {
    this.size += chunk.length
    if (this.size > MAX_ANSWER_BYTES) this.abort?.(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`))
    else this.parts.push(chunk)
    return true
  }

  onComplete(): void {
    if (this.done) return
    this.done = true
    const p = this.parts
    const text = p.length === 0 ? '' : (p.length === 1 ? p[0]! : Buffer.concat(p, this.size)).toString('utf8')
    this.resolve({ status: this.status, text })
  }

  onError(err: Error): void {
    if (this.done) return
    this.done = true
    this.reject(err)
  }
}
