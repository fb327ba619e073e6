/**
 * @module
 * The push stream's connection management, independent of the socket library: who may connect (the
 * key's plan, `stream` feature, daily quota: one call per connection), how many connections a key holds,
 * sessions, limits and counters. The uWS adapter (server/http/uws-stream.ts) calls it.
 */
import { Type } from '@sinclair/typebox'
import { ApiError } from '../../engine/errors.js'
import { EnumParam, StringParam } from '../../schemas/api/params.js'
import type { Readiness } from '../readiness.js'
import { CHANNEL_KINDS } from '../../engine/stream/kinds/registry.js'
import type { KeyRecord } from '../../engine/access/key-registry.js'
import type { Plan } from '../../engine/access/plans.js'
import type { StreamHub } from '../../engine/stream/stream-hub.js'
import { ENCODINGS, encodeFrame, type Encoding } from '../../engine/stream/frames.js'
import type { AccessControl } from '../access/access-control.js'
import type { HttpRequest, Route } from '../http/types.js'
import { newStreamCounters, type StreamCounters } from './counters.js'
import { StreamSession, type StreamSocket } from './session.js'
import { MAX_CLIENT_MESSAGE_BYTES } from './protocol.js'

/** Buffered bytes per connection above which it is a slow consumer: notified, then closed. */
export const SLOW_CONSUMER_BYTES = 1024 * 1024
/** uWS' per-socket cap: frames beyond it would be skipped, so the socket is closed instead. */
export const HARD_BACKPRESSURE_BYTES = 4 * SLOW_CONSUMER_BYTES
/** Seconds without any frame before a connection is closed; the server pings before that. */
export const IDLE_TIMEOUT_S = 60

/** The route describing `GET /v1/stream` (plain HTTP answers 426; the uWS adapter takes upgrades). */
export const STREAM_ROUTE: Route = {
  method: 'GET',
  path: '/v1/stream',
  access: 'key',
  feature: 'stream',
  summary: `Push stream (WebSocket): subscribe to ${CHANNEL_KINDS.map((k) => k.type).join(', ')}`,
  description:
    'Upgrade to a WebSocket with the key in X-API-Key or ?key=; ?encoding=msgpack for MessagePack binary frames. Protocol: docs/stream.md.',
  tags: ['stream'],
  // the upgrade's query parameters, declared so a plain HTTP request carrying them answers 426, not 400
  query: Type.Object({
    encoding: Type.Optional(EnumParam(ENCODINGS, { description: 'frame encoding', default: 'json' })),
    key: Type.Optional(
      StringParam({ description: 'the API key, for clients that cannot set X-API-Key (browsers)', maxLength: 256 })
    )
  }),
  handler: () => {
    throw new ApiError('upgrade_required', '/v1/stream is a WebSocket endpoint: connect with a WebSocket client', {
      headers: { upgrade: 'websocket' }
    })
  }
}

/**
 * The stream's 401: unlike the HTTP endpoints it also takes the key in `?key=` (browsers cannot set headers
 * on a WebSocket), and says so. The access check's own answer (its headers) is the cause.
 */
function streamUnauthorized(cause: ApiError): ApiError {
  return new ApiError(
    'unauthorized',
    'a valid API key is required in the X-API-Key header or the ?key= query parameter',
    { headers: cause.headers, cause }
  )
}

export interface Authorized {
  readonly key: KeyRecord
  readonly plan: Plan
  readonly encoding: Encoding
}

export class StreamService {
  readonly counters: StreamCounters = newStreamCounters()
  private readonly perKey = new Map<string, number>()
  private readonly sessions = new Set<StreamSession>()
  /**
   * What connections share rather than hold one each (memory per idle connection, docs/benchmarks.md):
   * the Authorized of a key record per encoding, the encoded welcome per plan and encoding, and one
   * close hook for every session.
   */
  private readonly authorized = new WeakMap<KeyRecord, Partial<Record<Encoding, Authorized>>>()
  private readonly welcomes = new Map<string, string | Uint8Array>()
  private readonly sessionClosed = (session: StreamSession): void => {
    this.sessions.delete(session)
    this.counters.connections--
    const keyId = session.keyId!
    const n = (this.perKey.get(keyId) ?? 1) - 1
    if (n <= 0) this.perKey.delete(keyId)
    else this.perKey.set(keyId, n)
  }

  constructor(
    readonly hub: StreamHub,
    private readonly access: AccessControl,
    private readonly readiness?: Readiness,
    /** the service holds demo data: the welcome and every snapshot say `synthetic: true` */
    private readonly synthetic = false
  ) {}

  /** Checks an upgrade request; an ApiError is answered over HTTP and nothing is upgraded. */
  authorize(req: HttpRequest): Authorized | ApiError {
    try {
      const enc = req.query.get('encoding') ?? 'json'
      if (!(ENCODINGS as readonly string[]).includes(enc)) {
        throw new ApiError('invalid_parameter', `encoding must be json or msgpack (got '${enc.slice(0, 20)}')`, {
          param: 'encoding'
        })
      }
      const key = req.headers['x-api-key'] ?? req.query.get('key') ?? undefined
      const caller = this.access.check(STREAM_ROUTE, {
        ...req,
        headers: key === undefined ? req.headers : { ...req.headers, 'x-api-key': key }
      } as HttpRequest)
      // no stream before the live state is built: its snapshots would be empty (503 warming_up, uncounted)
      this.readiness?.check()
      this.access.count(caller)
      const record = caller.key!
      let byEncoding = this.authorized.get(record)
      if (!byEncoding) this.authorized.set(record, (byEncoding = {}))
      // immutable, so every connection of a key and encoding shares one
      return (byEncoding[enc as Encoding] ??= { key: record, plan: caller.plan!, encoding: enc as Encoding })
    } catch (err) {
      this.counters.rejected++
      if (err instanceof ApiError) return err.code === 'unauthorized' ? streamUnauthorized(err) : err
      throw err
    }
  }

  /** A connection opened; null when the key is over its connection limit (the socket was told and closed). */
  open(sock: StreamSocket, auth: Authorized): StreamSession | null {
    const session = new StreamSession(sock, this.hub, auth.plan, auth.encoding, this.counters, this.synthetic)
    const held = this.perKey.get(auth.key.id) ?? 0
    const limit = auth.plan.stream.connections
    if (held >= limit) {
      this.counters.overLimit++
      session.error(
        'connection_limit',
        `the ${auth.plan.name} plan allows ${limit} open stream connections per key; close one first`
      )
      session.closed = true
      sock.end(1008, 'connection limit')
      return null
    }
    this.perKey.set(auth.key.id, held + 1)
    this.counters.connections++
    session.keyId = auth.key.id
    this.sessions.add(session)
    session.onClosed = this.sessionClosed
    session.sendFrame(this.welcome(auth))
    return session
  }

  /** The welcome frame, encoded once per plan and encoding (it says nothing else about a connection). */
  private welcome(auth: Authorized): string | Uint8Array {
    const id = `${auth.plan.name}|${auth.encoding}`
    let frame = this.welcomes.get(id)
    if (frame === undefined) {
      frame = encodeFrame(
        {
          type: 'welcome',
          ...(this.synthetic && { synthetic: true as const }),
          plan: auth.plan.name,
          encoding: auth.encoding,
          limits: {
            subscriptions: auth.plan.stream.subscriptions,
            connections: auth.plan.stream.connections,
            max_message_bytes: MAX_CLIENT_MESSAGE_BYTES,
            slow_consumer_bytes: SLOW_CONSUMER_BYTES
          }
        },
        auth.encoding
      )
      this.welcomes.set(id, frame)
    }
    return frame
  }

  /** The connection fell behind: tells it why, then closes it (the adapter force-closes if that stalls). */
  slowConsumer(session: StreamSession, sock: StreamSocket, buffered: number): void {
    if (session.closed) return
    this.counters.slowConsumers++
    session.error(
      'slow_consumer',
      `${buffered} bytes are waiting to be read (limit ${SLOW_CONSUMER_BYTES}); reconnect and resume with from_seq`
    )
    session.close()
    sock.end(4008, 'slow consumer')
  }

  /** Closes every connection (server shutdown). */
  closeAll(): void {
    for (const session of [...this.sessions]) {
      session.close()
      session.sock.end(1001, 'server shutting down')
    }
  }

  stats(): Record<string, number> {
    const hub = this.hub.stats()
    const c = this.counters
    return {
      connections: c.connections,
      subscriptions: c.subscriptions,
      channels: hub.channels,
      updates: hub.updates,
      messages: hub.messages,
      dropped_frames: c.droppedFrames,
      slow_consumer_disconnects: c.slowConsumers,
      connection_limit_closes: c.overLimit,
      rejected_upgrades: c.rejected,
      client_errors: c.clientErrors
    }
  }
}
