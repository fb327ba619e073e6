/**
 * The outbox's fast paths give exactly what the plain forms give (docs/webhooks.md, "Benchmark"):
 * - HMAC-SHA256 from one-shot hashes over padded key blocks (hmac-sha256.ts) equals `crypto.createHmac`
 *   for any key (shorter, equal to or longer than the 64-byte block, any UTF-8) and any message, and the
 *   scratch buffer reused across calls (and grown) never leaks one message into the next;
 * - the journal's compiled TSV encoder equals `tsvLine` for delivery and attempt rows of any values;
 * - the payload's cached event-time text gives the bytes of JSON.stringify whatever the order of times, and
 *   payloads carved from the shared slab never overlap: every one keeps its bytes while later ones are made;
 * - the response excerpt's shared UTF-8 decoder gives what a fresh StringDecoder gives, call after call
 *   (a character cut at the end left out, invalid bytes replaced, nothing carried into the next excerpt);
 * - `Retry-After` read from undici's raw answer headers equals what undici's own `parseHeaders` object
 *   gives (the first value when repeated, any case of the name, Buffer or string names and values);
 * - the answer handler's excerpt, whatever the chunking of the body, is the first 1 KiB decoded as by a
 *   fresh StringDecoder (one chunk kept as it is, several copied together).
 */
import crypto from 'node:crypto'
import { StringDecoder } from 'node:string_decoder'
import fc from 'fast-check'
import { util as undiciUtil } from 'undici'
import { describe, expect, it } from 'vitest'
import { ATTEMPT_COLUMNS, DELIVERY_COLUMNS } from '../../engine/webhooks/delivery.js'
import { hmacSha256 } from '../../engine/webhooks/hmac-sha256.js'
import { payloadBytes } from '../../engine/webhooks/payload.js'
import { serviceSignature, standardSignature } from '../../engine/webhooks/signing.js'
import { tsvEncoder } from '../../engine/runtime/tsv-row.js'
import { tsvLine } from '../helpers/webhooks/tsv-line.js'
import { AnswerHandler, decodeExcerpt, retryAfterOf, type Answer } from '../../server/webhooks/answer-handler.js'

function reference(key: string, prefix: string, body: Uint8Array, enc: 'hex' | 'base64'): string {
  return crypto.createHmac('sha256', Buffer.from(key, 'utf8')).update(prefix, 'utf8').update(body).digest(enc)
}

describe('webhook fast paths', () => {
  it('hmacSha256 equals createHmac for any key, prefix and body', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.string({ unit: 'grapheme', maxLength: 80 }),
          fc.stringMatching(/^[0-9a-f]{64}$/)
        ),
        fc.oneof(fc.constant(''), fc.string({ unit: 'grapheme', maxLength: 60 })),
        fc.uint8Array({ maxLength: 10_000 }),
        fc.constantFrom('hex' as const, 'base64' as const),
        (key, prefix, body, enc) => {
          expect(hmacSha256(key, prefix, body, enc)).toBe(reference(key, prefix, body, enc))
        }
      ),
      { numRuns: 500 }
    )
  })

  it('the two signatures equal createHmac over the spec bytes, call after call with one key', () => {
    const key = crypto.createHash('sha256').update('a secret of the test').digest('hex')
    const long = Buffer.alloc(9_000, 0x61) // grows the scratch buffer
    for (const body of [Buffer.from('{"a":1}'), long, Buffer.from('{"b":2}'), Buffer.alloc(0)]) {
      expect(serviceSignature(key, body)).toBe(reference(key, '', body, 'hex'))
      const id = 'msg_0123456789abcdef0123456789abcdef'
      expect(standardSignature(key, id, 1767323045, body)).toBe(
        'v1,' + reference(key, `${id}.1767323045.`, body, 'base64')
      )
    }
  })

  it('the compiled TSV encoder equals tsvLine for any row values', () => {
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('a\tb', 'a\nb', 'a\\b', 'a\rb', ''),
      fc.double(),
      fc.integer(),
      fc.constant(null),
      fc.constant(undefined),
      fc.boolean()
    )
    for (const columns of [DELIVERY_COLUMNS, ATTEMPT_COLUMNS]) {
      const encode = tsvEncoder(columns)
      fc.assert(
        fc.property(fc.array(value, { minLength: columns.length, maxLength: columns.length }), (values) => {
          const row = Object.fromEntries(columns.map((c, i) => [c, values[i]]))
          expect(encode(row)).toBe(tsvLine(row, columns))
        }),
        { numRuns: 300 }
      )
    }
  })

  it('payload bytes stay those of JSON.stringify when event times repeat and alternate', () => {
    const times = [0, 0, 1_767_323_045_678, 1_767_323_045_678, 0, -0, 1.5, 1.7, 86_400_000, 1_767_323_045_678]
    for (const [i, eventTs] of times.entries()) {
      const p = {
        event: 'HIGH',
        eventTs,
        symbol: 'BTC',
        direction: 'long',
        confidence: 'HIGH',
        composite: 0.5,
        webhookId: i
      }
      const spec = {
        event: p.event,
        ts: new Date(eventTs).toISOString(),
        symbol: p.symbol,
        direction: p.direction,
        confidence: p.confidence,
        composite: p.composite,
        webhook_id: p.webhookId
      }
      expect(payloadBytes(p).toString()).toBe(JSON.stringify(spec))
    }
    expect(() =>
      payloadBytes({
        event: 'HIGH',
        eventTs: NaN,
        symbol: 'B',
        direction: 'long',
        confidence: 'H',
        composite: 0,
        webhookId: 1
      })
    ).toThrow(RangeError)
  })

  it('payloads cut from the slab keep their bytes while thousands more are made (slab renewals, long ones)', () => {
    const made: { bytes: Buffer; want: string }[] = []
    for (let i = 0; i < 3_000; i++) {
      const symbol = i % 500 === 7 ? 'X'.repeat(9_000) : i % 3 === 0 ? 'é€😀'.repeat(i % 40) : `S${i}`
      const p = {
        event: 'HIGH',
        eventTs: 1_767_323_045_678 + i,
        symbol,
        direction: 'long',
        confidence: 'HIGH',
        composite: i / 7,
        webhookId: i
      }
      const want = JSON.stringify({
        event: p.event,
        ts: new Date(p.eventTs).toISOString(),
        symbol,
        direction: p.direction,
        confidence: p.confidence,
        composite: p.composite,
        webhook_id: i
      })
      made.push({ bytes: payloadBytes(p), want })
    }
    for (const m of made) expect(m.bytes.toString('utf8')).toBe(m.want)
    expect(made.every((m) => m.bytes.equals(Buffer.from(m.want)))).toBe(true)
  })

  it('the shared excerpt decoder equals a fresh StringDecoder for any bytes, one excerpt after another', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc
        .string({ unit: 'grapheme', maxLength: 20 })
        .chain((t) =>
          fc.nat({ max: Buffer.byteLength(t) }).map((cut) => new Uint8Array(Buffer.from(t).subarray(0, cut)))
        )
    )
    fc.assert(
      fc.property(fc.array(bytes, { minLength: 1, maxLength: 8 }), (list) => {
        for (const b of list) {
          const buf = Buffer.from(b)
          expect(decodeExcerpt(buf)).toBe(new StringDecoder('utf8').write(buf))
        }
      }),
      { numRuns: 500 }
    )
  })

  it('Retry-After from raw headers equals undici parseHeaders for any header list', () => {
    const names = fc.oneof(
      fc.constantFrom('retry-after', 'Retry-After', 'RETRY-AFTER', 'rEtRy-AfTeR', 'retry-aftex', 'retry_after'),
      fc.constantFrom('content-type', 'content-length', 'date', 'connection', 'keep-alive', 'x-retry-after'),
      fc.string({ maxLength: 12 }),
      fc.uint8Array({ minLength: 11, maxLength: 11 }).map((b) => Buffer.from(b).toString('latin1'))
    )
    const values = fc.oneof(
      fc.constantFrom('120', '0', 'Wed, 21 Oct 2026 07:28:00 GMT', ''),
      fc.string({ maxLength: 30 })
    )
    fc.assert(
      fc.property(fc.array(fc.tuple(names, values, fc.boolean()), { maxLength: 8 }), (pairs) => {
        // undici gives Buffers (latin1 bytes of the wire); strings too in some paths
        const raw = pairs.flatMap(([n, v, asBuffer]): (Buffer | string)[] =>
          asBuffer ? [Buffer.from(n, 'latin1'), Buffer.from(v, 'latin1')] : [n, v]
        )
        const ra = undiciUtil.parseHeaders(raw)['retry-after']
        const want = typeof ra === 'string' ? ra : (ra?.[0] ?? null)
        expect(retryAfterOf(raw)).toBe(want)
      }),
      { numRuns: 2000 }
    )
  })

  it('the answer excerpt equals the first 1 KiB decoded, however the body is cut into chunks', () => {
    const chunk = fc.oneof(
      fc.uint8Array({ maxLength: 700 }),
      fc.string({ unit: 'grapheme', maxLength: 300 }).map((t) => new Uint8Array(Buffer.from(t)))
    )
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 6 }), (chunks) => {
        let got: Answer | null = null
        const h = new AnswerHandler((a) => (got = a))
        h.onConnect(() => {})
        h.onHeaders(200, [Buffer.from('Retry-After'), Buffer.from('7')])
        for (const c of chunks) h.onData(Buffer.from(c))
        h.onComplete()
        const all = Buffer.concat(chunks.map((c) => Buffer.from(c)))
        const want = new StringDecoder('utf8').write(all.subarray(0, 1_024))
        expect(got).toEqual({ status: 200, retryAfter: '7', excerpt: want, error: null })
      }),
      { numRuns: 1000 }
    )
  })
})
