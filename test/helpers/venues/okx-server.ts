/**
 * A local OKX v5 protocol server for tests, on 127.0.0.1 and a free port: REST over node:http
 * (public instruments, rubik support-coin and long-short-account-ratio, market trades from the trades it
 * has published or been given while nobody listened) and the public WebSocket at
 * /ws/v5/public (`ws` package) with `{"op":"subscribe","args":[...]}` answered per arg by
 * `{"event":"subscribe","arg",connId}` or `{"event":"error","code":"60018",...}`, the text `ping` answered
 * with the text `pong`, and OKX's idle rule (a connection on which the server has sent nothing for
 * `idleCloseMs`, pongs included, is closed: OKX drops lines without data for 30 s). Tests drive it:
 * publish pushes, drop connections, go silent, send junk.
 */
import type http from 'node:http'
import type { WebSocket } from 'ws'
import { SubscribingTestServer, type SubscribingClient } from './venue-test-server.js'
import { INSTRUMENTS, SUPPORT_COIN, longShortBody, push, restTradeRow, tradeRow } from './okx-fixtures.js'

interface Client extends SubscribingClient {
  /** `channel|instId` or `channel|instType` keys */
  readonly subs: Set<string>
  /** last time the server sent this connection anything, epoch ms */
  lastOutbound: number
}

/** OKX's cap on `limit` of market trades (default 100). */
const TRADES_MAX = 500

const CHANNELS = new Set(['trades', 'funding-rate', 'open-interest', 'mark-price', 'liquidation-orders'])

export interface OkxServerOptions {
  /** close connections the server has sent nothing on for this long, ms (OKX: 30 s). @default 0 (never) */
  readonly idleCloseMs?: number
}

export class OkxTestServer extends SubscribingTestServer<Client> {
  /** what /api/v5/public/instruments answers; tests add listings */
  readonly instruments: Record<string, unknown>[] = [...INSTRUMENTS.data]
  /** every REST request path with its query, in order */
  readonly requestLog: string[] = []
  /** long/short ratio per coin served by long-short-account-ratio (newest reading at the current 5 minutes) */
  readonly longShort = new Map<string, string>()
  private readonly nextTradeId = new Map<string, number>()
  /** every trade per instrument as market trades serves it (REST rows, oldest first) */
  readonly history = new Map<string, object[]>()
  /** most rows one market trades answer holds, below `limit` (a short venue history). @default 500 */
  recentTradesCap = TRADES_MAX
  /** text pings received */
  pings = 0
  connections = 0
  /** connections the server closed for idleness */
  idleClosed = 0
  subscribeMessages = 0
  private idleTimer: NodeJS.Timeout | undefined

  // while paused: no pongs, no pushes
  constructor(private readonly opts: OkxServerOptions = {}) {
    super('/ws/v5/public', true)
  }

  override async start(): Promise<this> {
    await super.start()
    const idle = this.opts.idleCloseMs ?? 0
    if (idle > 0) {
      this.idleTimer = setInterval(
        () => {
          // a paused server plays dead: it neither sends nor closes
          for (const c of this.paused ? [] : this.clients) {
            if (Date.now() - c.lastOutbound >= idle) {
              this.idleClosed++
              c.ws.close(4004, 'No data received in 30s.')
            }
          }
        },
        Math.max(10, idle / 5)
      )
    }
    return this
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/ws/v5/public`
  }

  get restUrl(): string {
    return `http://127.0.0.1:${this.port}`
  }

  override async stop(): Promise<void> {
    clearInterval(this.idleTimer)
    await super.stop()
  }

  /** OKX closes lines it has sent nothing on: every frame is noted */
  protected override send(c: Client, text: string): void {
    c.lastOutbound = Date.now()
    c.ws.send(text)
  }

  protected onConnection(ws: WebSocket): void {
    const client: Client = { ws, subs: new Set(), lastOutbound: Date.now() }
    const send = (text: string): void => this.send(client, text)
    const connId = `c${++this.connections}`
    this.clients.add(client)
    ws.on('close', () => this.clients.delete(client))
    ws.on('message', (data) => {
      const text = String(data)
      if (text === 'ping') {
        this.pings++
        if (!this.paused) send('pong')
        return
      }
      let msg: { op?: string; args?: Record<string, string>[] }
      try {
        msg = JSON.parse(text) as typeof msg
      } catch {
        send(JSON.stringify({ event: 'error', code: '60012', msg: `Invalid request: ${text}`, connId }))
        return
      }
      if (msg.op !== 'subscribe' && msg.op !== 'unsubscribe') {
        send(JSON.stringify({ event: 'error', code: '60012', msg: `Invalid request: ${text}`, connId }))
        return
      }
      if (msg.op === 'subscribe') this.subscribeMessages++
      for (const arg of msg.args ?? []) {
        const key = this.argKey(arg)
        if (key === null) {
          const what = `channel:${arg['channel']}, instId:${arg['instId'] ?? arg['instType']}`
          send(JSON.stringify({ event: 'error', code: '60018', msg: `Wrong URL or ${what} doesn't exist.`, connId }))
          continue
        }
        if (msg.op === 'subscribe') {
          if (client.subs.has(key)) this.duplicateSubscribes++
          client.subs.add(key)
        } else client.subs.delete(key)
        send(JSON.stringify({ event: msg.op, arg, connId }))
      }
    })
  }

  /** The subscription key of a valid arg; null where OKX answers 60018 (unknown channel or instrument). */
  private argKey(arg: Record<string, string>): string | null {
    const channel = arg['channel'] ?? ''
    if (!CHANNELS.has(channel)) return null
    if (channel === 'liquidation-orders') return arg['instType'] === 'SWAP' ? `${channel}|SWAP` : null
    const instId = arg['instId'] ?? ''
    return this.instruments.some((i) => i['instId'] === instId) ? `${channel}|${instId}` : null
  }

  /** subscribe args for a key the same connection already held */
  duplicateSubscribes = 0

  /** How many open connections hold `key`. */
  holders(key: string): number {
    let n = 0
    for (const c of this.clients) if (c.subs.has(key)) n++
    return n
  }

  /** Sends a push of `channel` for `instId` (or instType SWAP for liquidations) to its subscribers. */
  publish(channel: string, instId: string | null, data: unknown[]): number {
    const arg: Record<string, string> = instId === null ? { channel, instType: 'SWAP' } : { channel, instId }
    const key = `${channel}|${instId ?? 'SWAP'}`
    return this.sendTo(key, JSON.stringify(push(arg, data)))
  }

  /**
   * The next trade of `instId` (sz in contracts), kept in the market trades history and, when `live`,
   * published; returns its trade id.
   */
  trade(instId: string, ts: number, px: string, sz: string, side: 'buy' | 'sell', live = true): string {
    const id = this.nextTradeId.get(instId) ?? 500_000_001
    this.nextTradeId.set(instId, id + 1)
    const row = tradeRow(instId, String(id), ts, px, sz, side)
    const history = this.history.get(instId) ?? []
    history.push(restTradeRow(row))
    this.history.set(instId, history)
    if (live) this.publish('trades', instId, [row])
    return String(id)
  }

  protected rest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x')
    this.countRequest(url.pathname)
    this.requestLog.push(url.pathname + url.search)
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    switch (url.pathname) {
      case '/api/v5/public/instruments':
        return url.searchParams.get('instType') === 'SWAP'
          ? send(200, { ...INSTRUMENTS, data: this.instruments })
          : send(200, { code: '51000', msg: 'Parameter instType error', data: [] })
      case '/api/v5/rubik/stat/trading-data/support-coin':
        return send(200, SUPPORT_COIN)
      case '/api/v5/rubik/stat/contracts/long-short-account-ratio': {
        const ccy = url.searchParams.get('ccy') ?? ''
        const ratio = this.longShort.get(ccy)
        if (ratio === undefined) return send(200, { code: '51000', msg: 'Parameter ccy error', data: [] })
        const ts = Math.floor(Date.now() / 300_000) * 300_000
        return send(200, longShortBody([[ts, ratio]]))
      }
      case '/api/v5/market/trades': {
        const instId = url.searchParams.get('instId') ?? ''
        if (!this.instruments.some((i) => i['instId'] === instId))
          return send(200, { code: '51001', msg: "Instrument ID doesn't exist", data: [] })
        const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), TRADES_MAX, this.recentTradesCap)
        const newestFirst = [...(this.history.get(instId) ?? [])].reverse().slice(0, limit)
        return send(200, { code: '0', msg: '', data: newestFirst })
      }
    }
    send(404, { code: '50014', msg: 'Path not found', data: [] })
  }
}
