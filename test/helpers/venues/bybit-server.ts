/**
 * A local Bybit v5 protocol server for tests, on 127.0.0.1 and a free port: REST over node:http
 * (instruments-info with cursor paging, account-ratio, recent-trade from the trades it has published or
 * been given while nobody listened) and the public linear WebSocket at /v5/public/linear
 * (`ws` package) with `{"op":"subscribe","args":[...],"req_id"}` requests and their acks, app-level
 * `{"op":"ping"}` answered with Bybit's pong, and `{topic,type,ts,data}` pushes. Like Bybit, subscribing a
 * `tickers.<symbol>` topic sends a snapshot of that market's ticker at once; later updates go out as deltas
 * with only the changed fields. Tests drive it: publish, drop connections, go silent, send junk.
 */
import type http from 'node:http'
import type { WebSocket } from 'ws'
import { SubscribingTestServer, type SubscribingClient } from './venue-test-server.js'
import {
  INSTRUMENTS,
  accountRatioBody,
  instrumentsBody,
  recentTradeRow,
  recentTradesBody,
  tickerFields,
  tickerMessage,
  tradeMessage
} from './bybit-fixtures.js'

export const WS_PATH = '/v5/public/linear'

type Client = SubscribingClient

export interface BybitServerOptions {
  /** instruments per instruments-info page (Bybit: `limit`, max 1000); small to exercise paging. @default 3 */
  readonly pageSize?: number
}

/** Bybit's cap on `limit` of recent-trade for linear. */
const RECENT_TRADES_MAX = 1_000

export class BybitTestServer extends SubscribingTestServer<Client> {
  /** full ticker state per symbol: what a snapshot carries */
  readonly tickers = new Map<string, Record<string, string>>()
  /** [buyRatio, sellRatio] per symbol served by account-ratio */
  readonly ratios = new Map<string, [string, string]>()
  /** every trade per symbol as recent-trade serves it (REST rows, oldest first) */
  readonly history = new Map<string, object[]>()
  /** most rows one recent-trade answer holds, below `limit` (a short venue history). @default 1000 */
  recentTradesCap = RECENT_TRADES_MAX
  /** every REST request path with its query, in order */
  readonly requestLog: string[] = []
  /** app-level pings received */
  pings = 0
  connections = 0
  subscribeRequests = 0
  /** largest args array of one subscribe request */
  maxArgs = 0

  // while paused: no pongs, no pushes, no acks; it still takes subscriptions
  constructor(private readonly opts: BybitServerOptions = {}) {
    super(WS_PATH, false)
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}${WS_PATH}`
  }

  get restUrl(): string {
    return `http://127.0.0.1:${this.port}`
  }

  protected onConnection(ws: WebSocket): void {
    const client: Client = { ws, subs: new Set() }
    const connId = `conn-${++this.connections}`
    this.clients.add(client)
    ws.on('ping', (data) => {
      if (!this.paused) ws.pong(data)
    })
    ws.on('close', () => this.clients.delete(client))
    ws.on('message', (data) => {
      let msg: { op?: string; args?: string[]; req_id?: string }
      try {
        msg = JSON.parse(String(data)) as typeof msg
      } catch {
        ws.send(JSON.stringify({ success: false, ret_msg: 'Invalid JSON', conn_id: connId, op: '' }))
        return
      }
      if (msg.op === 'ping') {
        if (this.paused) return
        this.pings++
        ws.send(
          JSON.stringify({ success: true, ret_msg: 'pong', conn_id: connId, req_id: msg.req_id ?? '', op: 'ping' })
        )
      } else if (msg.op === 'subscribe') {
        // a paused server still takes the subscription (a connection opened while it is silent must get
        // its pushes once it resumes) but answers nothing
        const args = msg.args ?? []
        for (const t of args) client.subs.add(t)
        if (this.paused) return
        this.subscribeRequests++
        this.maxArgs = Math.max(this.maxArgs, args.length)
        ws.send(
          JSON.stringify({ success: true, ret_msg: '', conn_id: connId, req_id: msg.req_id ?? '', op: 'subscribe' })
        )
        for (const t of args) {
          const state = t.startsWith('tickers.') ? this.tickers.get(t.slice('tickers.'.length)) : undefined
          if (state) ws.send(JSON.stringify(tickerMessage('snapshot', state, Date.now())))
        }
      }
    })
  }

  /** Sets a market's full ticker state (sent as the snapshot on subscribe). */
  setTicker(symbol: string, over: Record<string, string> = {}): void {
    this.tickers.set(symbol, tickerFields(symbol, over))
  }

  /** Sends a push (`{topic,...}`) to the subscribers of its topic; returns how many got it. */
  publish(push: { topic: string }): number {
    return this.sendTo(push.topic, JSON.stringify(push))
  }

  /**
   * Trades of `symbol` (socket rows from `tradeRow`): kept in the recent-trade history and, when `live`,
   * pushed as one `publicTrade` message. Returns how many connections got the push.
   */
  trades(symbol: string, rows: readonly object[], live = true): number {
    const history = this.history.get(symbol) ?? []
    history.push(...rows.map(recentTradeRow))
    this.history.set(symbol, history)
    if (!live) return 0
    const ts = (rows.at(-1) as { T: number } | undefined)?.T ?? Date.now()
    return this.publish(tradeMessage(symbol, ts, rows) as { topic: string })
  }

  /** Changes some ticker fields and pushes them as a delta (only those fields, as Bybit does). */
  tickerDelta(symbol: string, fields: Record<string, string>, ts = Date.now()): number {
    const state = this.tickers.get(symbol) ?? tickerFields(symbol)
    this.tickers.set(symbol, { ...state, ...fields })
    return this.publish(tickerMessage('delta', { symbol, ...fields }, ts) as { topic: string })
  }

  protected rest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x')
    this.countRequest(url.pathname)
    this.requestLog.push(url.pathname + url.search)
    const q = url.searchParams
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    const error = (retCode: number, retMsg: string): void =>
      send(200, { retCode, retMsg, result: {}, retExtInfo: {}, time: Date.now() })
    if (q.get('category') !== 'linear') return error(10001, 'params error: category invalid')
    switch (url.pathname) {
      case '/v5/market/instruments-info': {
        const size = this.opts.pageSize ?? 3
        const from = q.get('cursor') ? Number(q.get('cursor')!.replace('page-', '')) : 0
        const list = INSTRUMENTS.slice(from, from + size)
        const next = from + size < INSTRUMENTS.length ? `page-${from + size}` : ''
        return send(200, instrumentsBody(list, next))
      }
      case '/v5/market/account-ratio': {
        const symbol = q.get('symbol') ?? ''
        const ratio = this.ratios.get(symbol)
        if (q.get('period') !== '5min') return error(10001, 'params error: period invalid')
        if (ratio === undefined) return error(10001, 'params error: symbol invalid')
        const ts = Math.floor(Date.now() / 300_000) * 300_000
        return send(200, accountRatioBody(symbol, ratio[0], ratio[1], ts))
      }
      case '/v5/market/recent-trade': {
        const symbol = q.get('symbol') ?? ''
        if (!INSTRUMENTS.some((i) => (i as { symbol: string }).symbol === symbol))
          return error(10001, 'params error: symbol invalid')
        const limit = Math.min(Number(q.get('limit') ?? 500), RECENT_TRADES_MAX, this.recentTradesCap)
        const newestFirst = [...(this.history.get(symbol) ?? [])].reverse().slice(0, limit)
        return send(200, recentTradesBody(newestFirst, Date.now()))
      }
    }
    send(404, { retCode: 10404, retMsg: 'path not found' })
  }
}
