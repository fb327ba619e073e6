/**
 * The signature test vectors published in docs/webhooks.md, for both schemes: the spec's X-Service-Signature
 * (hex HMAC-SHA256 of the body keyed with the SHA-256 hex text of the secret) and Standard Webhooks
 * (checked against the `standardwebhooks` library). A tampered body or a wrong-length header is refused
 * without throwing.
 */
import crypto from 'node:crypto'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import {
  serviceSignature,
  signedHeaders,
  signingKeyOf,
  standardSignature,
  standardWebhookSecret
} from '../../engine/webhooks/signing.js'
import { payloadBytes } from '../../engine/webhooks/payload.js'

// the vector of docs/webhooks.md ("Verifying deliveries")
const SECRET = "It's a Secret to Everybody"
const BODY =
  '{"event":"HIGH","ts":"2026-01-02T03:04:05.678Z","symbol":"BTC","direction":"long","confidence":"HIGH","composite":0.72,"webhook_id":1}'
const KEY = '2f8894d90ffb75600928464c7839208284c8687671dc831cc2667a7ae04aa455'
const X_SIG = '971cee4341df5b1256b90a63cc7d2433e2e039af07f2ca7707063b57101bbd19'
const MSG_ID = 'msg_0123456789abcdef0123456789abcdef'
const TS = 1767323045
const SW_SIG = 'v1,TDOgyUsa1/wYUdALQSSeno04CxwoCsfgG3kSpvpyNd0='
const WHSEC = 'whsec_MmY4ODk0ZDkwZmZiNzU2MDA5Mjg0NjRjNzgzOTIwODI4NGM4Njg3NjcxZGM4MzFjYzI2NjdhN2FlMDRhYTQ1NQ=='

/** A receiver's check of X-Service-Signature: constant time, a wrong length refused without throwing. */
function receiverAccepts(secret: string, body: Buffer, header: string): boolean {
  const key = crypto.createHash('sha256').update(secret).digest('hex')
  const want = Buffer.from(crypto.createHmac('sha256', key).update(body).digest('hex'))
  const got = Buffer.from(header)
  return got.length === want.length && crypto.timingSafeEqual(got, want)
}

describe('webhook signatures', () => {
  it('the key is the SHA-256 hex text of the secret', () => {
    expect(signingKeyOf(SECRET)).toBe(KEY)
  })

  it('X-Service-Signature vector', () => {
    expect(serviceSignature(KEY, Buffer.from(BODY))).toBe(X_SIG)
    expect(receiverAccepts(SECRET, Buffer.from(BODY), X_SIG)).toBe(true)
  })

  it('the payload bytes are the spec fields in order', () => {
    const body = payloadBytes({
      event: 'HIGH',
      eventTs: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      payload: { symbol: 'BTC', direction: 'long', confidence: 'HIGH', composite: 0.72 },
      webhookId: 1
    })
    expect(body.toString()).toBe(BODY)
  })

  it('Standard Webhooks vector, and the library verifies it with whsec_ + base64 of the key text', () => {
    expect(standardWebhookSecret(KEY)).toBe(WHSEC)
    expect(standardSignature(KEY, MSG_ID, TS, Buffer.from(BODY))).toBe(SW_SIG)
    expect(new StandardWebhook(WHSEC).sign(MSG_ID, new Date(TS * 1000), BODY)).toBe(SW_SIG)
    const now = Date.now()
    const h = signedHeaders(KEY, 'HIGH', MSG_ID, now, Buffer.from(BODY))
    expect(() =>
      new StandardWebhook(WHSEC).verify(BODY, {
        'webhook-id': h['webhook-id'],
        'webhook-timestamp': h['webhook-timestamp'],
        'webhook-signature': h['webhook-signature']
      })
    ).not.toThrow()
    expect(h['x-service-signature']).toBe(X_SIG)
    expect(h['user-agent']).toBe('ServiceAPI-Webhook/1.0')
  })

  it('a tampered body, another secret, or a wrong-length header is refused', () => {
    const tampered = Buffer.from(BODY.replace('0.72', '0.73'))
    expect(receiverAccepts(SECRET, tampered, X_SIG)).toBe(false)
    expect(receiverAccepts('another secret value', Buffer.from(BODY), X_SIG)).toBe(false)
    expect(receiverAccepts(SECRET, Buffer.from(BODY), X_SIG.slice(1))).toBe(false)
    const h = signedHeaders(KEY, 'HIGH', MSG_ID, Date.now(), Buffer.from(BODY))
    expect(() =>
      new StandardWebhook(WHSEC).verify(tampered.toString(), {
        'webhook-id': h['webhook-id'],
        'webhook-timestamp': h['webhook-timestamp'],
        'webhook-signature': h['webhook-signature']
      })
    ).toThrow()
  })
})
