/**
 * @module
 * HTTP delivery with undici: one Agent, hence one connection pool per receiver origin with at most
 * `perReceiver` connections kept alive and reused (TLS handshakes once per connection, not per delivery).
 * Redirects are not followed (undici's request never follows them): a 3xx is a failed attempt. The
 * timeout applies to each phase through undici's own timers (connect, the answer's headers, each body
 * read): no answer within it fails the attempt, with no timer of our own per request. Only the first
 * RESPONSE_EXCERPT_BYTES of an answer are kept; a body of known length up to 64 KiB is read whole, one
 * of unknown length is read to 64 KiB so the connection can be reused, and the connection is dropped
 * beyond that.
 */
import { performance } from 'node:perf_hooks'
import { StringDecoder } from 'node:string_decoder'
import { Agent, type Dispatcher } from 'undici'
import type { AddressPolicy } from '../../engine/webhooks/address-policy.js'
import {
  RESPONSE_EXCERPT_BYTES,
  type DeliveryRequest,
  type DeliveryResult,
  type WebhookTransport
} from '../../engine/webhooks/transport.js'
import type { Resolve } from '../../engine/webhooks/url-check.js'
import { guardedConnector } from './guarded-connect.js'

/** Body bytes read past the excerpt before the connection is dropped instead of drained. */
const DRAIN_LIMIT_BYTES = 64 * 1024
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

  constructor(o: UndiciTransportOptions) {
    this.agent = new Agent({
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

  async send(req: DeliveryRequest): Promise<DeliveryResult> {
    const started = performance.now()
    let status: number | null = null
    let retryAfter: string | null = null
    let excerpt = ''
    let error: string | null = null
    try {
      const target = this.target(req.url)
      const res = await this.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: req.headers,
        body: req.body,
        // the agent's connect, headers and body timeouts are the attempt's timeout (no timer per request)
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs
      })
      status = res.statusCode
      const ra = res.headers['retry-after']
      retryAfter = typeof ra === 'string' ? ra : (ra?.[0] ?? null)
      const length = Number(res.headers['content-length'])
      // a small body of known length is read whole in one call (no stream iteration per delivery)
      excerpt =
        length >= 0 && length <= DRAIN_LIMIT_BYTES
          ? excerptOf(Buffer.from(await res.body.arrayBuffer()))
          : await readExcerpt(res.body)
    } catch (err) {
      if (status === null) error = describe(err, req.timeoutMs)
    }
    return { status, error, durationMs: performance.now() - started, excerpt, retryAfter }
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

/** The first RESPONSE_EXCERPT_BYTES of a whole body as UTF-8 (a character cut at the limit is left out). */
function excerptOf(body: Buffer): string {
  return new StringDecoder('utf8').write(body.subarray(0, RESPONSE_EXCERPT_BYTES))
}

/** The first RESPONSE_EXCERPT_BYTES of a body as UTF-8 (a character cut at the limit is left out). */
async function readExcerpt(body: Dispatcher.ResponseData['body']): Promise<string> {
  const decoder = new StringDecoder('utf8')
  let kept = 0
  let seen = 0
  let text = ''
  for await (const chunk of body as AsyncIterable<Buffer>) {
    seen += chunk.length
    if (kept < RESPONSE_EXCERPT_BYTES) {
      const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept)
      kept += part.length
      // the decoder holds back a character split at the limit, so the excerpt stays valid UTF-8 within 1 KiB
      text += decoder.write(part)
    }
    if (seen > DRAIN_LIMIT_BYTES) {
      body.destroy()
      break
    }
  }
  return text
}

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
