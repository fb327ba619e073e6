/**
 * The batch encoder's byte buffer (engine/whales/byte-sink.ts) against Buffer.from of the text: `raw` on
 * either side of its native-write length, `escaped` as escapeTsv, and a field copied from another sink (as
 * the whale_transfers line takes its fields from the chain_whale_events line), plain or escaped on the way,
 * for any text: TSV specials, unicode, lone surrogates.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { escapeTsv } from '../../engine/runtime/tsv-row.js'
import { ByteSink } from '../../engine/whales/byte-sink.js'

const text = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constantFrom(
    'a\tb\\c\nd\re',
    '\ud83d\udc33\t',
    'lone \ud800\\',
    'x'.repeat(39),
    'é'.repeat(40),
    '0x' + 'a'.repeat(64)
  ),
  fc.array(fc.constantFrom('a', '\\', '\t', '\n', '\r', 'é', '\ud800', '0'), { maxLength: 90 }).map((c) => c.join(''))
)

describe('ByteSink', () => {
  it('writes raw and escaped text as Buffer.from, and copies a field plain or escaped from another sink', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), (texts) => {
        const src = new ByteSink(1)
        const raw: Array<[number, number]> = []
        const escaped: Array<[number, number]> = []
        for (const t of texts) {
          const a = src.length
          src.raw(t)
          raw.push([a, src.length])
          const b = src.length
          src.escaped(t)
          escaped.push([b, src.length])
        }
        const want = Buffer.concat(texts.flatMap((t) => [Buffer.from(t), Buffer.from(escapeTsv(t))]))
        expect(src.bytes().equals(want)).toBe(true)
        // a small first size: the copies grow the buffer too
        const dst = new ByteSink(1)
        for (let i = 0; i < texts.length; i++) {
          dst.escapedFrom(src, raw[i]![0], raw[i]![1])
          dst.copyFrom(src, escaped[i]![0], escaped[i]![1])
          dst.copyFrom(src, raw[i]![0], raw[i]![1])
        }
        const copies = Buffer.concat(
          texts.flatMap((t) => [Buffer.from(escapeTsv(t)), Buffer.from(escapeTsv(t)), Buffer.from(t)])
        )
        expect(dst.bytes().equals(copies)).toBe(true)
      }),
      { numRuns: 500 }
    )
  })
})
