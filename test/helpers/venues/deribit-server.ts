/**
 * A local Deribit protocol server for tests, on 127.0.0.1 and a free port: REST `GET /api/v2/public/…` and
 * the JSON-RPC 2.0 WebSocket at `/ws/api/v2` (`ws` package). It speaks `public/set_heartbeat` (interval of
 * at least 10 s, as Deribit requires), sends `heartbeat` notifications and, on demand, `test_request`s, and
 * closes a connection that does not answer one with `public/test` in time (as Deribit does); it answers
 * `public/get_instruments`, `public/get_book_summary_by_currency` and `_by_instrument` from fixture chains
 * the test can change, with JSON-RPC errors for bad params and unknown methods, and `too_many_requests`
 * (10028, then the session is closed) on demand. Tests drive it: change open interest, drop connections,
 * go silent, send junk.
 */
import type http from 'node:http'
import { WebSocket } from 'ws'
import { VenueTestServer, type VenueClient } from './venue-test-server.js'
import { bookSummaryRow, instrumentRow, rpcError, rpcResult, type OptionSpec } from './deribit-fixtures.js'

interface Client extends VenueClient {
  heartbeat: boolean
  /** set while a test_request waits for its public/test */
  testTimer: NodeJS.Timeout | undefined
}

export interface DeribitServerOptions {
  /** period of `heartbeat` notifications once set, ms (Deribit: the interval asked for). @default 200 */
  readonly heartbeatMs?: number
  /** how long a test_request waits for public/test before the connection is closed, ms. @default 2_000 */
  readonly testGraceMs?: number
}

export class DeribitTestServer extends VenueTestServer<Client> {
  /** option chains per currency; `creationTs` stamps book summaries */
  readonly chains = new Map<string, OptionSpec[]>()
  creationTs: () => number = () => Date.now()
  /** socket requests in arrival order: method and params */
  readonly log: { method: string; params: Record<string, unknown> }[] = []
  connections = 0
  heartbeatsSet = 0
  testAnswers = 0
  closedForTest = 0
  /** answer the next n socket requests with too_many_requests and close the session */
  rateLimitNext = 0
  /** while muted the server sends no JSON-RPC messages but still answers pings (a hung application) */
  muted = false
  private beat: NodeJS.Timeout | undefined

  // `requests` counts JSON-RPC requests per method, REST and socket; while paused: no answers, heartbeats
  // or pongs
  constructor(private readonly opts: DeribitServerOptions = {}) {
    super('/ws/api/v2', false)
  }

  override async start(): Promise<this> {
    await super.start()
    this.beat = setInterval(() => {
      for (const c of this.clients)
        if (c.heartbeat) this.sendJson(c, { jsonrpc: '2.0', method: 'heartbeat', params: { type: 'heartbeat' } })
    }, this.opts.heartbeatMs ?? 200)
    return this
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/ws/api/v2`
  }

  get restUrl(): string {
    return `http://127.0.0.1:${this.port}/api/v2`
  }

  override async stop(): Promise<void> {
    clearInterval(this.beat)
    for (const c of this.clients) clearTimeout(c.testTimer)
    await super.stop()
  }

  count(method: string): number {
    return this.requests.get(method) ?? 0
  }

  /** Options of `currency` that have not expired at `now` (what get_instruments with expired=false lists). */
  listed(currency: string, now = Date.now()): OptionSpec[] {
    return (this.chains.get(currency) ?? []).filter((o) => o.expiryMs > now)
  }

  private sendJson(c: Client, body: unknown): void {
    if (!this.paused && !this.muted && c.ws.readyState === WebSocket.OPEN) c.ws.send(JSON.stringify(body))
  }

  protected onConnection(ws: WebSocket): void {
    const client: Client = { ws, heartbeat: false, testTimer: undefined }
    this.clients.add(client)
    this.connections++
    ws.on('ping', (data) => {
      if (!this.paused) ws.pong(data)
    })
    ws.on('close', () => {
      clearTimeout(client.testTimer)
      this.clients.delete(client)
    })
    ws.on('message', (data) => this.onRequest(client, String(data)))
  }

  private onRequest(c: Client, text: string): void {
    let req: { id?: number; method?: string; params?: Record<string, unknown> }
    try {
      req = JSON.parse(text) as typeof req
    } catch {
      return this.sendJson(c, rpcError(-32700, 'Parse error', null))
    }
    const method = String(req.method).replace(/^\/?(api\/v2\/)?/, '')
    const params = req.params ?? {}
    this.countRequest(method)
    this.log.push({ method, params })
    if (this.rateLimitNext > 0 && method !== 'public/test') {
      this.rateLimitNext--
      this.sendJson(c, rpcError(10028, 'too_many_requests', req.id))
      setTimeout(() => c.ws.close(1000), 5)
      return
    }
    const answer = this.answer(c, method, params)
    this.sendJson(
      c,
      'error' in answer
        ? rpcError(answer.error[0], answer.error[1], req.id, answer.error[2])
        : rpcResult(answer.result, req.id)
    )
  }

  private answer(
    c: Client,
    method: string,
    params: Record<string, unknown>
  ): { result: unknown } | { error: [number, string, unknown?] } {
    const invalid = (param: string, reason: string): { error: [number, string, unknown] } => ({
      error: [-32602, 'Invalid params', { reason, param }]
    })
    switch (method) {
      case 'public/set_heartbeat': {
        if (!(Number(params['interval']) >= 10)) return invalid('interval', 'must be at least 10')
        c.heartbeat = true
        this.heartbeatsSet++
        return { result: 'ok' }
      }
      case 'public/test':
        if (c.testTimer !== undefined) {
          clearTimeout(c.testTimer)
          c.testTimer = undefined
          this.testAnswers++
        }
        return { result: { version: '1.2.26' } }
      case 'public/get_instruments':
        return this.instruments(params)
      case 'public/get_book_summary_by_currency': {
        const chain = this.chains.get(String(params['currency']))
        if (chain === undefined) return invalid('currency', 'wrong format')
        const ts = this.creationTs()
        return { result: chain.map((o) => bookSummaryRow(o, ts)) }
      }
      case 'public/get_book_summary_by_instrument': {
        const name = String(params['instrument_name'])
        const o = [...this.chains.values()].flat().find((x) => x.name === name)
        if (o === undefined) return invalid('instrument_name', 'instrument not found')
        return { result: [bookSummaryRow(o, this.creationTs())] }
      }
    }
    return { error: [-32601, 'Method not found'] }
  }

  private instruments(params: Record<string, unknown>): { result: unknown } | { error: [number, string, unknown?] } {
    const currency = String(params['currency'])
    if (!this.chains.has(currency))
      return { error: [-32602, 'Invalid params', { reason: 'wrong format', param: 'currency' }] }
    if (params['kind'] !== 'option' || String(params['expired']) !== 'false') return { result: [] }
    return { result: this.listed(currency).map((o, i) => instrumentRow(o, 400_000 + i)) }
  }

  /** Sends a test_request to every connection with heartbeats; one that does not answer in time is closed. */
  testRequest(): void {
    for (const c of this.clients) {
      if (!c.heartbeat) continue
      this.sendJson(c, { jsonrpc: '2.0', method: 'heartbeat', params: { type: 'test_request' } })
      clearTimeout(c.testTimer)
      c.testTimer = setTimeout(() => {
        this.closedForTest++
        c.ws.terminate()
      }, this.opts.testGraceMs ?? 2_000)
    }
  }

  protected rest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x')
    const method = url.pathname.replace(/^\/api\/v2\//, '')
    this.countRequest(method)
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (method !== 'public/get_instruments') return send(404, rpcError(-32601, 'Method not found'))
    const answer = this.instruments(Object.fromEntries(url.searchParams))
    if ('error' in answer) return send(400, rpcError(answer.error[0], answer.error[1], undefined, answer.error[2]))
    send(200, rpcResult(answer.result))
  }
}
