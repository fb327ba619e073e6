/**
 * A local Binance USD-M protocol server for tests, on 127.0.0.1 and a free port: REST over node:http
 * (exchangeInfo, fundingInfo, openInterest, globalLongShortAccountRatio, aggTrades by fromId) and the
 * combined-stream WebSocket at /stream (`ws` package) with SUBSCRIBE/UNSUBSCRIBE messages and
 * `/stream?streams=a/b`, server pings, and `{"stream","data"}` envelopes. Tests drive it: publish events,
 * keep trades back (to make id gaps), drop connections, send junk.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, WebSocket } from 'ws'
import { EXCHANGE_INFO, FUNDING_INFO, aggTradeEvent, longShortBody, openInterestBody } from './binance-fixtures.js'

interface Client {
  readonly ws: WebSocket
  readonly streams: Set<string>
}

export interface BinanceServerOptions {
  /** server ping period, ms (Binance: 3 minutes). @default 200 */
  readonly pingMs?: number
}

export class BinanceTestServer {
  readonly http: http.Server
  private readonly wss: WebSocketServer
  readonly clients = new Set<Client>()
  /** every aggregate trade made per symbol, sent or kept back: what /fapi/v1/aggTrades serves */
  readonly trades = new Map<string, Record<string, unknown>[]>()
  private readonly nextId = new Map<string, number>()
  /** request counts per REST path (without query) */
  readonly requests = new Map<string, number>()
  /** open interest (contracts, string) per symbol served by /fapi/v1/openInterest */
  readonly openInterest = new Map<string, string>()
  /** long/short ratio per symbol served by globalLongShortAccountRatio */
  readonly longShort = new Map<string, string>()
  pongs = 0
  connections = 0
  /** while paused the server sends nothing: no pings, no pongs, no events (a silent, half-dead line) */
  paused = false
  subscribeMessages = 0
  private pinger: NodeJS.Timeout | undefined
  port = 0

  constructor(private readonly opts: BinanceServerOptions = {}) {
    this.http = http.createServer((req, res) => this.rest(req, res))
    // pongs are sent by hand so a paused server can play dead
    this.wss = new WebSocketServer({ server: this.http, path: '/stream', autoPong: false })
    this.wss.on('connection', (ws, req) => this.onConnection(ws, req))
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.http.listen(0, '127.0.0.1', r))
    this.port = (this.http.address() as AddressInfo).port
    this.pinger = setInterval(() => {
      if (!this.paused) for (const c of this.clients) c.ws.ping()
    }, this.opts.pingMs ?? 200)
    return this
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}`
  }

  get restUrl(): string {
    return `http://127.0.0.1:${this.port}`
  }

  async stop(): Promise<void> {
    clearInterval(this.pinger)
    for (const c of this.clients) c.ws.terminate()
    await new Promise<void>((r) => this.wss.close(() => r()))
    await new Promise<void>((r) => this.http.close(() => r()))
  }

  private onConnection(ws: WebSocket, req: http.IncomingMessage): void {
    const client: Client = { ws, streams: new Set() }
    const query = new URL(req.url ?? '/', 'http://x').searchParams.get('streams')
    if (query) for (const s of query.split('/')) client.streams.add(s)
    this.clients.add(client)
    this.connections++
    ws.on('pong', () => this.pongs++)
    ws.on('ping', (data) => {
      if (!this.paused) ws.pong(data)
    })
    ws.on('close', () => this.clients.delete(client))
    ws.on('message', (data) => {
      let msg: { method?: string; params?: string[]; id?: number }
      try {
        msg = JSON.parse(String(data)) as typeof msg
      } catch {
        ws.send(JSON.stringify({ error: { code: 3, msg: 'Invalid JSON' } }))
        return
      }
      if (msg.method === 'SUBSCRIBE') {
        this.subscribeMessages++
        for (const s of msg.params ?? []) client.streams.add(s)
      } else if (msg.method === 'UNSUBSCRIBE') {
        for (const s of msg.params ?? []) client.streams.delete(s)
      }
      ws.send(JSON.stringify({ result: null, id: msg.id ?? null }))
    })
  }

  /** Every stream some connection is subscribed to. */
  subscribed(): Set<string> {
    const out = new Set<string>()
    for (const c of this.clients) for (const s of c.streams) out.add(s)
    return out
  }

  /** Waits until every stream in `streams` has a subscriber. */
  async waitSubscribed(streams: readonly string[], timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs
    while (!streams.every((s) => this.subscribed().has(s))) {
      if (Date.now() > until) throw new Error(`not subscribed: ${streams.filter((s) => !this.subscribed().has(s))}`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  /** Sends `data` on `stream` to its subscribers, in the combined-stream envelope. */
  publish(stream: string, data: unknown): number {
    const text = JSON.stringify({ stream, data })
    let n = 0
    for (const c of this.clients) {
      if (c.streams.has(stream) && c.ws.readyState === WebSocket.OPEN && !this.paused) {
        c.ws.send(text)
        n++
      }
    }
    return n
  }

  /** Sends raw text to every connection (junk, unknown events). */
  sendRaw(text: string): void {
    for (const c of this.clients) if (c.ws.readyState === WebSocket.OPEN) c.ws.send(text)
  }

  /** Makes the next aggregate trade of `symbol`; sent to subscribers unless `keepBack` (an id gap). */
  trade(symbol: string, ts: number, price: string, qty: string, buyerIsMaker: boolean, keepBack = false): number {
    const id = this.nextId.get(symbol) ?? 1_000
    this.nextId.set(symbol, id + 1)
    const event = aggTradeEvent(symbol, id, ts, price, qty, buyerIsMaker) as Record<string, unknown>
    let list = this.trades.get(symbol)
    if (!list) this.trades.set(symbol, (list = []))
    list.push(event)
    if (!keepBack) this.publish(`${symbol.toLowerCase()}@aggTrade`, event)
    return id
  }

  pauseAll(): void {
    this.paused = true
  }

  resumeAll(): void {
    this.paused = false
  }

  /** Drops every connection without a close handshake (a network cut). */
  dropAll(): void {
    for (const c of this.clients) c.ws.terminate()
  }

  private rest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x')
    this.requests.set(url.pathname, (this.requests.get(url.pathname) ?? 0) + 1)
    const symbol = url.searchParams.get('symbol') ?? ''
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-mbx-used-weight-1m': '10' })
      res.end(JSON.stringify(body))
    }
    switch (url.pathname) {
      case '/fapi/v1/exchangeInfo':
        return send(200, EXCHANGE_INFO)
      case '/fapi/v1/fundingInfo':
        return send(200, FUNDING_INFO)
      case '/fapi/v1/openInterest': {
        const oi = this.openInterest.get(symbol)
        return oi === undefined
          ? send(400, { code: -1121, msg: 'Invalid symbol.' })
          : send(200, openInterestBody(symbol, oi, Date.now()))
      }
      case '/futures/data/globalLongShortAccountRatio': {
        const ratio = this.longShort.get(symbol)
        if (ratio === undefined) return send(200, [])
        const long = (Number(ratio) / (1 + Number(ratio))).toFixed(4)
        const ts = Math.floor(Date.now() / 300_000) * 300_000
        return send(200, longShortBody(symbol, ratio, long, (1 - Number(long)).toFixed(4), ts))
      }
      case '/fapi/v1/aggTrades': {
        const from = Number(url.searchParams.get('fromId'))
        const limit = Math.min(1000, Number(url.searchParams.get('limit') ?? 500))
        const rows = (this.trades.get(symbol) ?? [])
          .filter((t) => (t as { a: number }).a >= from)
          .slice(0, limit)
          .map(({ e: _e, E: _E, s: _s, ...rest }: Record<string, unknown>) => rest)
        return send(200, rows)
      }
    }
    send(404, { code: -5000, msg: 'Path not found' })
  }
}
