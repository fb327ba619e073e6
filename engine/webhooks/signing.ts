/**
 * @module
 * Delivery signatures. One key per webhook: the text of the SHA-256 hex digest of the registered secret
 * (64 lower-case ASCII characters; spec, Authentication 6). Two schemes sign each delivery with those same
 * 64 bytes:
 *
 * - `X-Service-Signature`: HMAC-SHA256 over the exact body bytes, hex (the spec's scheme).
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): HMAC-SHA256 over
 *   `{webhook-id}.{webhook-timestamp}.{body}`, base64, as `v1,<sig>`. A receiver's Standard Webhooks secret
 *   is `whsec_` + base64 of the 64-character key text (`standardWebhookSecret`); docs/webhooks.md has test
 *   vectors for both.
 */
import crypto from 'node:crypto'

/** The signing key of a secret: its SHA-256 digest as 64 lower-case hex characters. */
export function signingKeyOf(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex')
}

/** Signing keys seen, as KeyObjects (the key text's UTF-8 bytes); at most KEY_CACHE of them, then cleared. */
const keyObjects = new Map<string, crypto.KeyObject>()
const KEY_CACHE = 4096

/** The HMAC key of `key`: its UTF-8 bytes, as createHmac takes the string itself, made once per key. */
function hmacKey(key: string): crypto.KeyObject {
  let k = keyObjects.get(key)
  if (k === undefined) {
    if (keyObjects.size >= KEY_CACHE) keyObjects.clear()
    k = crypto.createSecretKey(Buffer.from(key, 'utf8'))
    keyObjects.set(key, k)
  }
  return k
}

/** `X-Service-Signature`: hex HMAC-SHA256 of `body` keyed with the key's text. */
export function serviceSignature(key: string, body: Uint8Array): string {
  return crypto.createHmac('sha256', hmacKey(key)).update(body).digest('hex')
}

/** `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `{id}.{timestampS}.{body}` keyed with the key's text. */
export function standardSignature(key: string, id: string, timestampS: number, body: Uint8Array): string {
  return (
    'v1,' +
    crypto.createHmac('sha256', hmacKey(key)).update(`${id}.${timestampS}.`, 'utf8').update(body).digest('base64')
  )
}

/** The Standard Webhooks secret a receiver configures for a webhook whose key is `key`. */
export function standardWebhookSecret(key: string): string {
  return `whsec_${Buffer.from(key, 'utf8').toString('base64')}`
}

/** Headers of one attempt (the body is signed once per attempt: the timestamp is the attempt's). */
export interface SignedHeaders extends Readonly<Record<string, string>> {
  readonly 'content-type': 'application/json'
  readonly 'user-agent': string
  readonly 'x-service-event': string
  readonly 'x-service-signature': string
  readonly 'webhook-id': string
  readonly 'webhook-timestamp': string
  readonly 'webhook-signature': string
}

/** The spec's User-Agent (Versioning 2: the webhook User-Agent carries version 1.0). */
export const USER_AGENT = 'ServiceAPI-Webhook/1.0'

export function signedHeaders(
  key: string,
  event: string,
  messageId: string,
  nowMs: number,
  body: Uint8Array
): SignedHeaders {
  const ts = Math.floor(nowMs / 1000)
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-event': event,
    'x-service-signature': serviceSignature(key, body),
    'webhook-id': messageId,
    'webhook-timestamp': String(ts),
    'webhook-signature': standardSignature(key, messageId, ts, body)
  }
}
