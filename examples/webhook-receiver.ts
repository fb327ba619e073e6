/**
 * @module
 * Example webhook receiver (docs/webhooks.md "Verifying deliveries"), Node's standard library only. It checks
 * both signatures of every delivery over the exact bytes received: `X-Service-Signature` (hex HMAC-SHA256 of
 * the body) and the Standard Webhooks `webhook-signature` over `webhook-id.webhook-timestamp.body` with a
 * 5-minute timestamp tolerance, both keyed with the hex text of SHA-256(secret); a delivery failing either is
 * answered 401. It answers 200 to each verified delivery, remembers `webhook-id`s so a retried delivery is
 * handled once, and prints each event as a JSON line. Webhooks are https:// only, so it serves TLS when given a
 * certificate (or runs behind a proxy that terminates TLS).
 *
 *   TIDEWATCH_WEBHOOK_SECRET=... PORT=8443 TLS_CERT=cert.pem TLS_KEY=key.pem node dist/examples/webhook-receiver.js
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'

/** Standard Webhooks' tolerance between the signed timestamp and the receiver's clock, seconds. */
export const TOLERANCE_S = 5 * 60

/** The signing key of both schemes: the 64 ASCII bytes of the hex SHA-256 of the secret. */
export const signingKey = (secret: string): Buffer =>
  Buffer.from(crypto.createHash('sha256').update(secret).digest('hex'), 'ascii')

const equal = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && crypto.timingSafeEqual(x, y)
}

/**
 * Why a delivery fails verification, or null when both signatures hold. `headers` are lower-case (as Node
 * gives them); `nowS` is the receiver's clock, Unix seconds.
 */
export function verifyDelivery(
  key: Buffer,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: Buffer,
  nowS: number = Math.floor(Date.now() / 1000)
): string | null {
  const one = (h: string): string => {
    const v = headers[h]
    return Array.isArray(v) ? (v[0] ?? '') : (v ?? '')
  }
  const service = crypto.createHmac('sha256', key).update(body).digest('hex')
  if (!equal(one('x-service-signature'), service)) return 'X-Service-Signature does not match the body'
  const id = one('webhook-id')
  const ts = one('webhook-timestamp')
  if (!/^\d{1,12}$/.test(ts) || Math.abs(nowS - Number(ts)) > TOLERANCE_S) {
    return 'webhook-timestamp is missing or more than 5 minutes from this clock'
  }
  const signed = crypto.createHmac('sha256', key).update(`${id}.${ts}.`).update(body).digest('base64')
  // several signatures may be sent, space-separated (key rotation); one that matches is enough
  const ok = one('webhook-signature')
    .split(' ')
    .some((s) => s.startsWith('v1,') && equal(s.slice(3), signed))
  return ok ? null : 'webhook-signature does not match'
}

export interface ReceiverOptions {
  readonly secret: string
  readonly port?: number
  readonly host?: string
  /** PEM certificate and key: serve https (Tidewatch delivers to https:// URLs only) */
  readonly tls?: { readonly cert: string; readonly key: string }
  /** each verified event, once per webhook-id */
  readonly onEvent: (event: Record<string, unknown>, id: string) => void
}

/** Delivery ids remembered to answer retries without handling them twice. */
const SEEN_MAX = 10_000
/** Largest body read, bytes: deliveries are a few hundred. */
const BODY_MAX = 256 * 1024

/** Starts the receiver; resolves with its URL and a stop function. */
export async function startReceiver(o: ReceiverOptions): Promise<{ url: string; stop: () => Promise<void> }> {
  const key = signingKey(o.secret)
  const seen = new Set<string>()
  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > BODY_MAX) req.destroy()
      else chunks.push(c)
    })
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const refused = req.method === 'POST' ? verifyDelivery(key, req.headers, body) : 'deliveries are POSTs'
      if (refused !== null) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end(refused)
        return
      }
      const id = String(req.headers['webhook-id'])
      if (!seen.has(id)) {
        seen.add(id)
        if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value!)
        o.onEvent(JSON.parse(body.toString('utf8')) as Record<string, unknown>, id)
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  }
  const server = o.tls ? https.createServer({ cert: o.tls.cert, key: o.tls.key }, handle) : http.createServer(handle)
  await new Promise<void>((r) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  return {
    url: `${o.tls ? 'https' : 'http'}://${o.host ?? '127.0.0.1'}:${port}/hook`,
    stop: () => new Promise<void>((r) => server.close(() => r()))
  }
}

if (process.argv[1]?.endsWith('webhook-receiver.js')) {
  const secret = process.env['TIDEWATCH_WEBHOOK_SECRET']
  if (!secret) {
    console.error('set TIDEWATCH_WEBHOOK_SECRET to the secret the webhook was registered with')
    process.exit(2)
  }
  const cert = process.env['TLS_CERT']
  const keyFile = process.env['TLS_KEY']
  const { url } = await startReceiver({
    secret,
    port: Number(process.env['PORT'] ?? 8443),
    host: process.env['HOST'] ?? '127.0.0.1',
    ...(cert && keyFile ? { tls: { cert: fs.readFileSync(cert, 'utf8'), key: fs.readFileSync(keyFile, 'utf8') } } : {}),
    onEvent: (event, id) => console.log(JSON.stringify({ delivery_id: id, ...event }))
  })
  console.error(`listening on ${url}`)
}
