/**
 * The plumbing every local venue server shares: one node:http server on 127.0.0.1 and a free port for
 * REST, the venue's WebSocket endpoint on it (`ws` package), the connected clients, REST request counts,
 * and the test controls (pause, drop, raw text). A venue adds its protocol: `onConnection`, `rest`, and
 * timers around `start`/`stop`. `SubscribingTestServer` adds the subscription bookkeeping of the
 * subscribe-style venues (Binance, Bybit, OKX).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, WebSocket } from 'ws'

export interface VenueClient {
  readonly ws: WebSocket
}

export abstract class VenueTestServer<C extends VenueClient> {
  readonly http: http.Server
  protected readonly wss: WebSocketServer
  readonly clients = new Set<C>()
  /** REST (or JSON-RPC) request counts per path or method */
  readonly requests = new Map<string, number>()
  /** while paused the server sends nothing (a silent, half-dead line); what each venue still does is its own */
  paused = false
  port = 0

  /** `autoPong: false` lets a paused server play dead (pongs sent by hand). */
  constructor(wsPath: string, autoPong: boolean) {
    this.http = http.createServer((req, res) => this.rest(req, res))
    this.wss = new WebSocketServer({ server: this.http, path: wsPath, autoPong })
    this.wss.on('connection', (ws, req) => this.onConnection(ws, req))
  }

  protected abstract onConnection(ws: WebSocket, req: http.IncomingMessage): void
  protected abstract rest(req: http.IncomingMessage, res: http.ServerResponse): void

  async start(): Promise<this> {
    await new Promise<void>((r) => this.http.listen(0, '127.0.0.1', r))
    this.port = (this.http.address() as AddressInfo).port
    return this
  }

  async stop(): Promise<void> {
    for (const c of this.clients) c.ws.terminate()
    await new Promise<void>((r) => this.wss.close(() => r()))
    await new Promise<void>((r) => this.http.close(() => r()))
  }

  /** Sends raw text to every connection (junk, unknown messages). */
  sendRaw(text: string): void {
    for (const c of this.clients) if (c.ws.readyState === WebSocket.OPEN) this.send(c, text)
  }

  /** Every server-initiated frame of the shared helpers goes through here (a venue may note the time). */
  protected send(c: C, text: string): void {
    c.ws.send(text)
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

  protected countRequest(key: string): void {
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1)
  }
}

export interface SubscribingClient extends VenueClient {
  /** the venue's subscription keys this connection holds (streams, topics, `channel|instId`) */
  readonly subs: Set<string>
}

export abstract class SubscribingTestServer<C extends SubscribingClient> extends VenueTestServer<C> {
  /** Every subscription key some connection holds. */
  subscribed(): Set<string> {
    const out = new Set<string>()
    for (const c of this.clients) for (const s of c.subs) out.add(s)
    return out
  }

  /** Waits until every key in `keys` has a subscriber. */
  async waitSubscribed(keys: readonly string[], timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs
    while (!keys.every((k) => this.subscribed().has(k))) {
      if (Date.now() > until) throw new Error(`not subscribed: ${keys.filter((k) => !this.subscribed().has(k))}`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  /** Sends `text` to the open connections holding `key` (unless paused); returns how many got it. */
  protected sendTo(key: string, text: string): number {
    let n = 0
    for (const c of this.clients) {
      if (c.subs.has(key) && c.ws.readyState === WebSocket.OPEN && !this.paused) {
        this.send(c, text)
        n++
      }
    }
    return n
  }

  /** Drops the connections holding subscription `key`; returns how many. */
  dropSubscribersOf(key: string): number {
    let n = 0
    for (const c of this.clients) {
      if (!c.subs.has(key)) continue
      c.ws.terminate()
      n++
    }
    return n
  }
}
