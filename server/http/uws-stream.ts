/**
 * @module
 * The push stream on uWebSockets.js: upgrade (key check before anything is upgraded), sessions, the
 * fan-out (uws-fanout.ts) as the hub's Publisher, and backpressure. Rules (uWS examples): the upgrade is answered
 * synchronously; a message's ArrayBuffer is read before the handler returns; a closed socket is never
 * touched; per-socket buffered bytes are watched (uWS skips frames above `maxBackpressure`, so that cap is
 * set to close instead, and a sweep closes sockets over the lower slow-consumer limit with a notice first).
 */
import uWS from 'uWebSockets.js'
import type { HttpRequest } from './types.js'
import {
  HARD_BACKPRESSURE_BYTES,
  IDLE_TIMEOUT_S,
  SLOW_CONSUMER_BYTES,
  type Authorized,
  type StreamService
} from '../stream/stream-service.js'
import type { StreamSession, StreamSocket } from '../stream/session.js'
import { errorBody } from '../../engine/errors.js'
import { statusLine } from './status-line.js'
import { Fanout, type FanoutSocket } from './uws-fanout.js'

/** How often buffered bytes are checked, ms. */
const SWEEP_MS = 100
/**
 * Sockets checked per sweep (rotating), so the sweep's cost stays flat however many connections are open:
 * at 10,000 connections each is checked every 0.5 s; the 4 MiB hard cap covers the time in between.
 */
const SWEEP_BATCH = 2_000
/** A slow consumer still open this long after its close frame is cut off, ms. */
const FORCE_CLOSE_MS = 2_000
/** Frames above this close the connection (uWS); the protocol answers frames above 16 KiB with an error. */
const MAX_PAYLOAD_BYTES = 64 * 1024

/**
 * One connection's data: uWS keeps it as the socket's user data by copying its own fields onto the
 * WebSocket object (`getUserData()` returns the socket itself, whose native methods win over any class's),
 * so it holds data only and the session talks to `sock`.
 */
interface Conn {
  readonly auth: Authorized
  /** set in `open` (uWS creates the socket after the upgrade) */
  sock: ConnSocket | null
  session: StreamSession | null
  /** position in the sweep list (swap-removed on close) */
  index: number
}

/** The session's socket and the fan-out's: methods on the prototype, no closures. */
class ConnSocket implements StreamSocket, FanoutSocket {
  closed = false
  pending: (string | Uint8Array)[] | null = null

  constructor(
    private readonly ws: uWS.WebSocket<Conn>,
    private readonly binary: boolean,
    private readonly fanout: Fanout<ConnSocket>
  ) {}

  send(frame: string | Uint8Array, binary: boolean): boolean {
    if (this.pending !== null) this.fanout.writePending(this)
    return !this.closed && this.ws.send(frame, binary) !== 2
  }

  write(frames: readonly (string | Uint8Array)[]): number {
    let refused = 0
    this.ws.cork(() => {
      // a send over the hard cap closes the socket (closeOnBackpressureLimit): the rest are refused
      for (const frame of frames) if (this.closed || this.ws.send(frame, this.binary) === 2) refused++
    })
    return refused
  }

  subscribe(topic: string): void {
    if (!this.closed) this.fanout.subscribe(topic, this)
  }

  /** also called for each topic once the connection closed (the session releases its channels) */
  unsubscribe(topic: string): void {
    this.fanout.unsubscribe(topic, this)
  }

  end(code: number, reason: string): void {
    if (this.closed) return
    this.ws.end(code, reason)
    // a peer that never reads never completes the close handshake
    setTimeout(forceClose, FORCE_CLOSE_MS, this).unref()
  }

  /** Closes at once (a slow consumer that did not complete the close handshake). */
  close(): void {
    if (!this.closed) this.ws.close()
  }
}

function forceClose(sock: ConnSocket): void {
  sock.close()
}

export interface StreamTransport {
  /** stops the sweep timer */
  close(): void
}

export function attachStream(server: uWS.TemplatedApp, service: StreamService): StreamTransport {
  const open: uWS.WebSocket<Conn>[] = []
  let cursor = 0
  const fanout = new Fanout<ConnSocket>((frames) => (service.counters.droppedFrames += frames))
  service.hub.attach({
    publish: (topic, frame) => fanout.publish(topic, frame),
    subscribers: (topic) => fanout.subscribers(topic)
  })
  server.ws<Conn>('/v1/stream', {
    compression: uWS.DISABLED,
    maxPayloadLength: MAX_PAYLOAD_BYTES,
    maxBackpressure: HARD_BACKPRESSURE_BYTES,
    // the typings say number; uWS reads it as a flag
    closeOnBackpressureLimit: 1,
    idleTimeout: IDLE_TIMEOUT_S,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      const query = new URLSearchParams(req.getQuery() ?? '')
      const headers: Record<string, string> = {}
      // cookie, origin, host: a session stands in for a key (accounts, docs/accounts.md)
      for (const name of ['x-api-key', 'x-forwarded-for', 'cookie', 'origin', 'host', 'x-forwarded-host']) {
        const v = req.getHeader(name)
        if (v !== '') headers[name] = v
      }
      const wsKey = req.getHeader('sec-websocket-key')
      const wsProtocol = req.getHeader('sec-websocket-protocol')
      const wsExtensions = req.getHeader('sec-websocket-extensions')
      const request: HttpRequest = {
        method: 'GET',
        path: '/v1/stream',
        query,
        headers,
        body: null,
        get ip() {
          return Buffer.from(res.getRemoteAddressAsText()).toString()
        }
      }
      const auth = service.authorize(request)
      if (!('plan' in auth)) {
        res.cork(() => {
          res.writeStatus(statusLine(auth.status))
          res.writeHeader('content-type', 'application/json')
          for (const k in auth.headers) res.writeHeader(k, auth.headers[k]!)
          res.end(JSON.stringify(errorBody(auth)))
        })
        return
      }
      const conn: Conn = { auth, sock: null, session: null, index: -1 }
      res.upgrade<Conn>(conn, wsKey, wsProtocol, wsExtensions, context)
    },
    open: (ws) => {
      const conn = ws.getUserData()
      conn.sock = new ConnSocket(ws, conn.auth.encoding === 'msgpack', fanout)
      conn.session = service.open(conn.sock, conn.auth)
      if (conn.session) {
        conn.index = open.length
        open.push(ws)
      }
    },
    message: (ws, message, isBinary) => {
      const ud = ws.getUserData()
      // parsed synchronously: uWS reuses `message` after this returns
      ud.session?.onMessage(new Uint8Array(message), isBinary)
    },
    close: (ws) => {
      const ud = ws.getUserData()
      if (ud.sock) ud.sock.closed = true
      if (ud.index >= 0) {
        const last = open.pop()!
        if (last !== ws) {
          open[ud.index] = last
          last.getUserData().index = ud.index
        }
        ud.index = -1
      }
      ud.session?.close()
    }
  })
  const sweep = setInterval(() => {
    for (let n = Math.min(SWEEP_BATCH, open.length); n > 0; n--) {
      if (cursor >= open.length) cursor = 0
      const ws = open[cursor++]!
      const ud = ws.getUserData()
      if (!ud.sock || ud.sock.closed || !ud.session || ud.session.closed) continue
      const buffered = ws.getBufferedAmount()
      if (buffered > SLOW_CONSUMER_BYTES) service.slowConsumer(ud.session, ud.sock, buffered)
    }
  }, SWEEP_MS)
  sweep.unref()
  return { close: () => clearInterval(sweep) }
}
