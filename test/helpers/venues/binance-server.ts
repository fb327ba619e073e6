/**
 * A local Binance USD-M protocol server for tests, on 127.0.0.1 and a free port: REST over node:http
 * (exchangeInfo, fundingInfo, openInterest, globalLongShortAccountRatio, aggTrades by fromId) and the
 * combined-stream WebSocket at /stream (`ws` package) with SUBSCRIBE/UNSUBSCRIBE messages and
 * `/stream?streams=a/b`, server pings, and `{"stream","data"}` envelopes. Tests drive it: publish events,
 * keep trades back (to make id gaps), drop connections, send junk.
 */
import type http from 'node:http'
import type { WebSocket } from 'ws'
import { SubscribingTestServer, type SubscribingClient } from './venue-test-server.js'
import { EXCHANGE_INFO, FUNDING_INFO, aggTradeEvent, longShortBody, openInterestBody } from './binance-fixtures.js'

type Client = SubscribingClient

export interface BinanceServerOptions {
  /** server ping period, ms (Binance: 3 minutes). @default 200 */
  readonly pingMs?: number
}

export class BinanceTestServer extends SubscribingTestServer<Client> {
  /** every aggregate trade made per symbol, sent or kept back: what /fapi/v1/aggTrades serves */
  readonly trades = new Map<string, Record<string, unknown>[]>()
  private readonly nextId = new Map<string, number>()
  /** open interest (contracts, string) per symbol served by /fapi/v1/openInterest */
  readonly openInterest = new Map<string, string>()
  /** long/short ratio per symbol served by globalLongShortAccountRatio */
  readonly longShort = new Map<string, string>()
  pongs = 0
  connections = 0
  subscribeMessages = 0
  private pinger: NodeJS.Timeout | undefined

  // while paused: no pings, no pongs, no events
  constructor(private readonly opts: BinanceServerOptions = {}) {
    super('/stream', false)
  }

  override async start(): Promise<this> {
    await super.start()
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

  override async stop(): Promise<void> {
    clearInterval(this.pinger)
    await super.stop()
  }

  protected onConnection(ws: WebSocket, req: http.IncomingMessage): void {
    const client: Client = { ws, subs: new Set() }
    const query = new URL(req.url ?? '/', 'http://x').searchParams.get('streams')
    if (query) for (const s of query.split('/')) client.subs.add(s)
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
        for (const s of msg.params ?? []) client.subs.add(s)
      } else if (msg.method === 'UNSUBSCRIBE') {
        for (const s of msg.params ?? []) client.subs.delete(s)
      }
      ws.send(JSON.stringify({ result: null, id: msg.id ?? null }))
    })
  }

  /** Sends `data` on `stream` to its subscribers, in the combined-stream envelope. */
  publish(stream: string, data: unknown): number {
    return this.sendTo(stream, JSON.stringify({ stream, data }))
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

  protected rest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x')
    this.countRequest(url.pathname)
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
