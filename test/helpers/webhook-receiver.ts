/**
 * A webhook receiver as a third party would run one: HTTPS on 127.0.0.1 with a certificate from a test CA
 * generated here with the openssl CLI, recording every request's raw body and headers, and verifying each
 * delivery independently of the service's code: the spec's X-Service-Signature recomputed with node:crypto
 * from the raw secret, and the Standard Webhooks headers checked with the `standardwebhooks` library.
 * Its answers are scripted per request (status, headers, body, delay, or a dropped connection).
 */
import crypto from 'node:crypto'
import https from 'node:https'
import type net from 'node:net'
import path from 'node:path'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import { tmpDir } from './tmp-dir.js'
import { makeBenchTls } from '../../bench/webhooks/tls.js'

export interface TestCa {
  readonly dir: string
  /** PEM of the CA (what NODE_EXTRA_CA_CERTS points to: `caFile`) */
  readonly ca: string
  readonly caFile: string
  readonly key: string
  readonly cert: string
  cleanup(): void
}

/** A CA and a server certificate for 127.0.0.1 and localhost (the benchmark's: EC P-256, openssl CLI). */
export function makeTestCa(): TestCa {
  const t = tmpDir('tw-webhook-tls-')
  const tls = makeBenchTls(t.dir)
  return { dir: t.dir, ...tls, caFile: path.join(t.dir, 'ca.pem'), cleanup: t.cleanup }
}

export interface Received {
  readonly at: number
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
  /** X-Service-Signature matched the body recomputed from the raw secret */
  readonly serviceSignatureOk: boolean
  /** the standardwebhooks library accepted webhook-id/-timestamp/-signature */
  readonly standardOk: boolean
}

export type Answer =
  | {
      readonly status: number
      readonly headers?: Record<string, string>
      readonly body?: string
      readonly delayMs?: number
    }
  | { readonly drop: true }

/** Recomputes the spec's signature as a receiver would: HMAC-SHA256 keyed with the SHA-256 hex text of the secret. */
export function expectedServiceSignature(secret: string, body: Buffer): string {
  const key = crypto.createHash('sha256').update(secret).digest('hex')
  return crypto.createHmac('sha256', key).update(body).digest('hex')
}

/** The receiver's Standard Webhooks secret for a raw secret (docs/webhooks.md). */
export function standardSecret(secret: string): string {
  const key = crypto.createHash('sha256').update(secret).digest('hex')
  return 'whsec_' + Buffer.from(key).toString('base64')
}

export class WebhookReceiver {
  readonly received: Received[] = []
  private server!: https.Server
  private readonly sockets = new Set<net.Socket>()
  port = 0
  /** TCP connections accepted (a refused address must never get one) */
  connections = 0
  /** decides each answer; default 200 `ok` */
  answer: (req: Received, n: number) => Answer = () => ({ status: 200, body: 'ok' })

  constructor(
    private readonly tls: Pick<TestCa, 'key' | 'cert'>,
    /** the raw secret the webhook was registered with */
    public secret: string
  ) {}

  async start(port = 0): Promise<string> {
    this.server = https.createServer(
      { key: this.tls.key, cert: this.tls.cert, keepAliveTimeout: 60_000 },
      (req, res) => {
        const chunks: Buffer[] = []
        req.on('data', (c: Buffer) => chunks.push(c))
        req.on('end', () => {
          const body = Buffer.concat(chunks)
          const headers = Object.fromEntries(
            Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])
          )
          const r: Received = {
            at: Date.now(),
            path: req.url ?? '',
            headers,
            body,
            serviceSignatureOk: headers['x-service-signature'] === expectedServiceSignature(this.secret, body),
            standardOk: standardOk(this.secret, body, headers)
          }
          this.received.push(r)
          const a = this.answer(r, this.received.length)
          if ('drop' in a) {
            req.socket.destroy()
            return
          }
          const send = () => {
            if (res.destroyed) return
            res.writeHead(a.status, { 'content-type': 'text/plain', ...(a.headers ?? {}) })
            res.end(a.body ?? '')
          }
          if (a.delayMs) setTimeout(send, a.delayMs)
          else send()
        })
      }
    )
    this.server.on('connection', (s: net.Socket) => {
      this.connections++
      this.sockets.add(s)
      s.on('close', () => this.sockets.delete(s))
    })
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', r))
    this.port = (this.server.address() as net.AddressInfo).port
    return `https://127.0.0.1:${this.port}/hook`
  }

  /** Distinct webhook-id values received (what a deduplicating receiver processes). */
  ids(): Set<string> {
    return new Set(this.received.map((r) => r.headers['webhook-id']!))
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((r) => this.server.close(() => r()))
  }
}

function standardOk(secret: string, body: Buffer, headers: Record<string, string>): boolean {
  try {
    new StandardWebhook(standardSecret(secret)).verify(body.toString('utf8'), {
      'webhook-id': headers['webhook-id'] ?? '',
      'webhook-timestamp': headers['webhook-timestamp'] ?? '',
      'webhook-signature': headers['webhook-signature'] ?? ''
    })
    return true
  } catch {
    return false
  }
}

/** Waits until `cond` holds, polling; throws with `what` after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await cond()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`)
}
