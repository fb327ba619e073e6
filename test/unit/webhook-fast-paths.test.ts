/**
 * The outbox's fast paths give exactly what the plain forms give (docs/webhooks.md, "Benchmark"):
 * - the journal's compiled TSV encoder equals `tsvLine` for delivery and attempt rows of any values;
 * - the response excerpt's shared UTF-8 decoder gives what a fresh StringDecoder gives, call after call
 *   (a character cut at the end left out, invalid bytes replaced, nothing carried into the next excerpt);
 * - `Retry-After` read from undici's raw answer headers equals what undici's own `parseHeaders` object
 *   gives (the first value when repeated, any case of the name, Buffer or string names and values);
 * - the answer handler's excerpt, whatever the chunking of the body, is the first 1 KiB decoded as by a
 *   fresh StringDecoder (one chunk kept as it is, several copied together).
 */
import { StringDecoder } from 'node:string_decoder'
import fc from 'fast-check'
import { util as undiciUtil } from 'undici'
import { describe, expect, it } from 'vitest'
import { ATTEMPT_COLUMNS, DELIVERY_COLUMNS } from '../../engine/webhooks/delivery.js'
import { tsvEncoder } from '../../engine/runtime/tsv-row.js'
import { tsvLine } from '../helpers/webhooks/tsv-line.js'
import { AnswerHandler, decodeExcerpt, retryAfterOf, type Answer } from '../../server/webhooks/answer-handler.js'

describe('webhook fast paths', () => {
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
