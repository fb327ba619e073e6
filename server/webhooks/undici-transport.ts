/**
 * @module
 * HTTP delivery with undici: one Agent, hence one connection pool per receiver origin with at most
 * `perReceiver` connections kept alive and reused (TLS handshakes once per connection, not per delivery).
 * Redirects are not followed (undici's dispatch never follows them): a 3xx is a failed attempt. The
 * timeout applies to each phase through undici's own timers (connect, the answer's headers, each body
 * read): no answer within it fails the attempt, with no timer of our own per request. The answer is read
 * by a dispatch handler (answer-handler.ts: status, Retry-After, the first 1 KiB; the body drained to
 * 64 KiB so the connection can be reused, dropped beyond that), not through a response stream.
 */
import { performance } from 'node:perf_hooks'
import { Agent, Client, Pool } from 'undici'
import type { AddressPolicy } from '../../engine/webhooks/address-policy.js'
import type { DeliveryRequest, DeliveryResult, WebhookTransport } from '../../engine/webhooks/transport.js'
import type { Resolve } from '../../engine/webhooks/url-check.js'
import { AnswerHandler, type Answer } from './answer-handler.js'
import { guardedConnector } from './guarded-connect.js'

/** Idle keep-alive of a receiver connection, ms (receivers' own keep-alive hints can shorten it). */
const KEEP_ALIVE_MS = 30_000

export interface UndiciTransportOptions {
  readonly policy: AddressPolicy
  /** connections (and requests in flight) per receiver origin */
  readonly perReceiver: number
  /** no answer within this time fails an attempt, ms; also bounds connect */
  readonly timeoutMs: number
  /** resolver override (tests) */
  readonly resolve?: Resolve
  /** trusted CAs replacing Node's default store (tests); default Node's store incl. NODE_EXTRA_CA_CERTS */
  readonly ca?: readonly string[]
}

export class UndiciTransport implements WebhookTransport {
  private readonly agent: Agent
  private readonly targets = new Map<string, { readonly origin: string; readonly path: string }>()
  /**
   * Each origin's pool as the agent made it (its factory records it), dispatched to directly while it is
   * open: the agent's own dispatch layer per request (origin key, lookups, another handler check) measured
   * ~0.6 µs. A pool the agent dropped (its connections gone) is closed at once, so it is not used: the
   * request goes through the agent, which makes and records a new one. Same pools, options and limits.
   */
  private readonly pools = new Map<string, Pool | Client>()

  constructor(o: UndiciTransportOptions) {
    this.agent = new Agent({
      // undici's default factory (a Client for one connection, else a Pool; `opts` are the agent's own,
      // `connections` included), recording what it makes
      factory: (origin, opts) => {
        const d =
          o.perReceiver === 1 ? new Client(origin, opts as Client.Options) : new Pool(origin, opts as Pool.Options)
        if (this.pools.size >= MAX_TARGETS) this.pools.clear()
        this.pools.set(String(origin), d)
        return d
      },
      connections: o.perReceiver,
      pipelining: 1,
      keepAliveTimeout: KEEP_ALIVE_MS,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
      connect: guardedConnector({
        policy: o.policy,
        connectTimeoutMs: o.timeoutMs,
        ...(o.resolve ? { resolve: o.resolve } : {}),
        ...(o.ca ? { ca: o.ca } : {})
      })
    })
  }

  send(req: DeliveryRequest): Promise<DeliveryResult> {
    const started = performance.now()
    return new Promise((resolve) => {
      const finish = (a: Answer): void =>
        resolve({
          status: a.status,
          error: a.status === null ? describe(a.error, req.timeoutMs) : null,
          durationMs: performance.now() - started,
          excerpt: a.excerpt,
          retryAfter: a.retryAfter
        })
      try {
        const target = this.target(req.url)
        const pool = this.pools.get(target.origin)
        const via = pool !== undefined && !pool.closed && !pool.destroyed ? pool : this.agent
        via.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: 'POST',
            headers: req.headers,
            body: req.body,
            // the agent's connect, headers and body timeouts are the attempt's timeout (no timer per request)
            headersTimeout: req.timeoutMs,
            bodyTimeout: req.timeoutMs
          },
          new AnswerHandler(finish)
        )
      } catch (err) {
        finish({ status: null, retryAfter: null, excerpt: '', error: err })
      }
    })
  }

  async close(): Promise<void> {
    await this.agent.close()
  }

  /** A receiver URL's origin and path, parsed once per URL (bounded cache). */
  private target(raw: string): { readonly origin: string; readonly path: string } {
    let t = this.targets.get(raw)
    if (t === undefined) {
      const url = new URL(raw)
      t = { origin: url.origin, path: url.pathname + url.search }
      if (this.targets.size >= MAX_TARGETS) this.targets.clear()
      this.targets.set(raw, t)
    }
    return t
  }
}

/** URLs whose parse is kept (one per webhook in practice). */
const MAX_TARGETS = 10_000

/** A person's reading of a connection error, with its code. */
function describe(err: unknown, timeoutMs: number): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } }
  const code = e.code ?? e.cause?.code
  const message = e.message ?? String(err)
  if (code === 'WEBHOOK_ADDRESS_REFUSED') return message
  if (code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)'
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `connection reset (${code})`
  if (code === 'ENOTFOUND') return `host not found (ENOTFOUND)`
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `timeout: no connection within ${timeoutMs} ms (${code})`
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return `timeout: no answer within ${timeoutMs} ms (${code})`
  return code ? `${message} (${code})` : message
}
