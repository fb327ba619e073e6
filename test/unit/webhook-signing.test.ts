/**
 * The signature test vectors published in docs/webhooks.md, for both schemes: the spec's X-Service-Signature
 * (hex HMAC-SHA256 of the body keyed with the SHA-256 hex text of the secret) and Standard Webhooks
 * (checked against the `standardwebhooks` library). Beyond the vectors, both signatures are checked against
 * HMAC-SHA256 written out here from SHA-256 (RFC 2104, itself checked on RFC 4231's test cases), for any key
 * and body. A tampered body or a wrong-length header is refused without throwing.
 */
import crypto from 'node:crypto'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import fc from 'fast-check'
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

/** HMAC-SHA256 by its definition (RFC 2104): H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ m)), 64-byte blocks. */
function rfc2104(key: Uint8Array, message: Uint8Array): Buffer {
  const block = Buffer.alloc(64)
  Buffer.from(key.length > 64 ? crypto.createHash('sha256').update(key).digest() : key).copy(block)
  const pad = (byte: number): Buffer => Buffer.from(block.map((b) => b ^ byte))
  const inner = crypto.createHash('sha256').update(pad(0x36)).update(message).digest()
  return crypto.createHash('sha256').update(pad(0x5c)).update(inner).digest()
}

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

  it('the reference HMAC gives RFC 4231 test cases 1, 2 and 6 (a key longer than the block)', () => {
    const hex = (k: Uint8Array, m: string): string => rfc2104(k, Buffer.from(m)).toString('hex')
    expect(hex(Buffer.alloc(20, 0x0b), 'Hi There')).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'
    )
    expect(hex(Buffer.from('Jefe'), 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'
    )
    expect(hex(Buffer.alloc(131, 0xaa), 'Test Using Larger Than Block-Size Key - Hash Key First')).toBe(
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54'
    )
  })

  it('both signatures are HMAC-SHA256 by definition, for any key text, message id, time and body', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string({ unit: 'grapheme', maxLength: 80 })),
        fc.stringMatching(/^msg_[0-9a-f]{32}$/),
        fc.integer({ min: 0, max: 4_102_444_800 }),
        fc.uint8Array({ maxLength: 5_000 }),
        (key, id, ts, body) => {
          const k = Buffer.from(key, 'utf8')
          expect(serviceSignature(key, body)).toBe(rfc2104(k, body).toString('hex'))
          const signed = Buffer.concat([Buffer.from(`${id}.${ts}.`), body])
          expect(standardSignature(key, id, ts, body)).toBe(`v1,${rfc2104(k, signed).toString('base64')}`)
        }
      ),
      { numRuns: 300 }
    )
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
