/**
 * A local Bitget (unified v3) protocol server for tests, on 127.0.0.1 and a free port: REST over node:http
 * (`/api/v3/market/instruments`, `/api/v3/market/fills` from the trades it has published or been given
 * while nobody listened, `/api/v2/mix/market/account-long-short`) and the public WebSocket at
 * /v3/ws/public (`ws` package) with `{"op":"subscribe","args":[{instType,topic,symbol}]}` answered per arg
 * by `{"event":"subscribe","arg"}` or, for a market it does not list, `{"event":"error","code":30001,...}`;
 * the text `ping` answered with the text `pong`; Bitget's rule that a connection which has sent no ping for
 * `noPingCloseMs` is closed. Like Bitget, subscribing `ticker` sends a `snapshot` of the market's ticker at
 * once, later changes go out as `update`s; subscribing `publicTrade` sends a snapshot of recent trades.
 * Tests drive it: publish, drop connections, go silent, send junk.
 */
import type http from 'node:http'
import type { WebSocket } from 'ws'
import { SubscribingTestServer, type SubscribingClient } from './venue-test-server.js'
import { INSTRUMENTS, fillRow, longShortBody, push, subscribeError, tickerRow, tradeRow } from './bitget-fixtures.js'

export const WS_PATH = '/v3/ws/public'
const TOPICS = new Set(['publicTrade', 'ticker', 'liquidation'])
/** Bitget's cap on `limit` of public fills. */
const FILLS_MAX = 100

interface Client extends SubscribingClient {
  /** last ping the client sent, epoch ms */
  lastPing: number
}

export interface BitgetServerOptions {
  /** close connections that sent no ping for this long, ms (Bitget: 2 minutes). @default 0 (never) */
  readonly noPingCloseMs?: number
}

export class BitgetTestServer extends SubscribingTestServer<Client> {
  /** what the instrument list answers; tests add listings */
  readonly instruments: Record<string, unknown>[] = [...INSTRUMENTS.data]
  /** full ticker row per symbol: what a snapshot carries */
  readonly tickers = new Map<string, Record<string, unknown>>()
  /** [long share, short share] per symbol served by account-long-short (one reading at the current 5 minutes) */
  readonly longShort = new Map<string, [string, string]>()
  /** every trade per symbol as fills serves it (fills rows, oldest first) */
  readonly history = new Map<string, Record<string, unknown>[]>()
  /** every REST request path with its query, in order */
  readonly requestLog: string[] = []
  pings = 0
  connections = 0
  subscribeMessages = 0
  /** largest args array of one subscribe message */
  maxArgs = 0
  /** markets listed by REST that the socket refuses (Bitget answers a subscribe error) */
  readonly refused = new Set<string>()
  /** subscribe args answered with an error */
  subscribeErrors = 0
  /** connections closed for sending no ping */
  noPingClosed = 0
  private nextTradeId = 7_300_000_000_000_000_001
  private noPingTimer: NodeJS.Timeout | undefined

  // while paused: no pongs, no pushes, no acks; it still takes subscriptions
  constructor(private readonly opts: BitgetServerOptions = {}) {
    super(WS_PATH, false)
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}${WS_PATH}`
  }

  get restUrl(): string {
    return `http://127.0.0.1:${this.port}`
  }

  override async start(): Promise<this> {
    await super.start()
    const limit = this.opts.noPingCloseMs ?? 0
    if (limit > 0) {
      this.noPingTimer = setInterval(
        () => {
          for (const c of this.clients) {
            if (Date.now() - c.lastPing < limit) continue
            this.noPingClosed++
            c.ws.close(4000, 'no ping')
          }
        },
        Math.max(10, limit / 5)
      )
    }
    return this
  }

  override async stop(): Promise<void> {
    clearInterval(this.noPingTimer)
    await super.stop()
  }

  /** Sets a market's full ticker (fixture defaults under `over`). */
  setTicker(symbol: string, over: Record<string, unknown> = {}): void {
    this.tickers.set(symbol, tickerRow(over))
  }

  /** Changes fields of a market's ticker and pushes them as an `update` with only those fields. */
  tickerUpdate(symbol: string, fields: Record<string, unknown>): number {
    this.tickers.set(symbol, { ...(this.tickers.get(symbol) ?? tickerRow()), ...fields })
    return this.sendTo(`ticker|${symbol}`, JSON.stringify(push('ticker', symbol, [fields], Date.now())))
  }

  /** Sends a push to the subscribers of its topic (and symbol). */
  publish(msg: Record<string, unknown>): number {
    const arg = msg['arg'] as { topic: string; symbol?: string }
    return this.sendTo(`${arg.topic}|${arg.symbol ?? 'usdt-futures'}`, JSON.stringify(msg))
  }

  /** The next trade of `symbol`, kept in the fills history and, when `live`, published; returns its id. */
  trade(symbol: string, ts: number, side: 'buy' | 'sell', v: string, p: string, live = true): string {
    const id = String(this.nextTradeId++)
    const row = tradeRow(id, ts, side, v, p)
    const history = this.history.get(symbol) ?? []
    history.push(fillRow(row))
    this.history.set(symbol, history)
    if (live) this.publish(push('publicTrade', symbol, [row], ts))
    return id
  }

  protected onConnection(ws: WebSocket): void {
    const client: Client = { ws, subs: new Set(), lastPing: Date.now() }
    this.connections++
    this.clients.add(client)
    ws.on('close', () => this.clients.delete(client))
    ws.on('message', (data) => {
      const text = String(data)
      if (text === 'ping') {
        this.pings++
        client.lastPing = Date.now()
        if (!this.paused) ws.send('pong')
        return
      }
      let msg: { op?: string; args?: Record<string, string>[] }
      try {
        msg = JSON.parse(text) as typeof msg
      } catch {
        ws.send(JSON.stringify({ event: 'error', code: 30012, msg: 'param error' }))
        return
      }
      if ((msg.op !== 'subscribe' && msg.op !== 'unsubscribe') || !Array.isArray(msg.args)) {
        ws.send(JSON.stringify({ event: 'error', code: 30012, msg: 'param error' }))
        return
      }
      if (msg.op === 'subscribe') {
        this.subscribeMessages++
        this.maxArgs = Math.max(this.maxArgs, msg.args.length)
      }
      for (const arg of msg.args) {
        const key = this.argKey(arg)
        if (key === null) {
          this.subscribeErrors++
          if (!this.paused) ws.send(JSON.stringify(subscribeError(arg)))
          continue
        }
        if (msg.op === 'unsubscribe') {
          client.subs.delete(key)
          continue
        }
        client.subs.add(key)
        if (this.paused) continue
        ws.send(JSON.stringify({ event: 'subscribe', arg }))
        this.snapshot(ws, arg)
      }
    })
  }

  /** What Bitget sends right after a subscribe: the ticker, or the recent trades of the market. */
  private snapshot(ws: WebSocket, arg: Record<string, string>): void {
    const symbol = arg['symbol']
    if (symbol === undefined) return
    if (arg['topic'] === 'ticker') {
      const row = this.tickers.get(symbol)
      if (row) ws.send(JSON.stringify(push('ticker', symbol, [row], Date.now(), 'snapshot')))
    } else if (arg['topic'] === 'publicTrade') {
      const recent = (this.history.get(symbol) ?? []).slice(-5).reverse()
      const rows = recent.map((f) => ({ i: f['execId'], p: f['price'], v: f['size'], S: f['side'], T: f['ts'] }))
      ws.send(JSON.stringify(push('publicTrade', symbol, rows, Date.now(), 'snapshot')))
    }
  }

  /** The subscription key of a valid arg; null where Bitget answers an error. */
  private argKey(arg: Record<string, string>): string | null {
    const topic = arg['topic'] ?? ''
    if (!TOPICS.has(topic) || arg['instType'] !== 'usdt-futures') return null
    if (topic === 'liquidation') return arg['symbol'] === undefined ? 'liquidation|usdt-futures' : null
    const symbol = arg['symbol'] ?? ''
    return this.listed(symbol) && !this.refused.has(symbol) ? `${topic}|${symbol}` : null
  }

  private listed(symbol: string): boolean {
    return this.instruments.some((i) => i['symbol'] === symbol)
  }

  protected rest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x')
    this.countRequest(url.pathname)
    this.requestLog.push(url.pathname + url.search)
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    const ok = (data: unknown) => send(200, { code: '00000', msg: 'success', requestTime: Date.now(), data })
    const fail = (code: string, msg: string) => send(400, { code, msg, requestTime: Date.now(), data: null })
    const symbol = url.searchParams.get('symbol') ?? ''
    switch (url.pathname) {
      case '/api/v3/market/instruments':
        return url.searchParams.get('category') === 'USDT-FUTURES'
          ? ok(this.instruments)
          : fail('40034', 'Parameter category does not exist')
      case '/api/v3/market/fills': {
        if (url.searchParams.get('category') !== 'USDT-FUTURES' || !this.listed(symbol))
          return fail('40034', 'Parameter symbol does not exist')
        const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), FILLS_MAX)
        return ok([...(this.history.get(symbol) ?? [])].reverse().slice(0, limit))
      }
      case '/api/v2/mix/market/account-long-short': {
        const shares = this.longShort.get(symbol)
        if (shares === undefined) return fail('40034', 'Parameter symbol does not exist')
        const ts = Math.floor(Date.now() / 300_000) * 300_000
        return send(200, longShortBody([[ts, ...shares]]))
      }
    }
    fail('40404', 'Request URL NOT FOUND')
  }
}
