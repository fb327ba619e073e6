import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ByteBuffer, type BufferSource } from '../../engine/runtime/byte-buffer.js'
import { escapeTsv } from '../../engine/runtime/tsv-row.js'

describe('ByteBuffer', () => {
  it('writes text as Buffer.from does, escaped as escapeTsv, numbers as String, across growths', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.double(), fc.nat())), (cells) => {
        const b = new ByteBuffer(1)
        let expected = ''
        for (const c of cells) {
          if (typeof c === 'number') {
            b.num(c)
            expected += String(c)
          } else {
            b.raw(c)
            b.byte(9)
            b.escaped(c)
            expected += c + '\t' + escapeTsv(c)
          }
        }
        expect(Buffer.from(b.bytes()).equals(Buffer.from(expected, 'utf8'))).toBe(true)
      })
    )
  })

  it('take hands out an exact copy over its own memory and empties the buffer; direct writes count', () => {
    const b = new ByteBuffer(4)
    b.raw('ab')
    b.ensure(3)
    b.buf[b.length++] = 0x63
    const out = b.take()
    expect(Buffer.from(out).toString()).toBe('abc')
    expect(out.byteOffset).toBe(0)
    expect(out.buffer.byteLength).toBe(3)
    expect(b.length).toBe(0)
  })

  it('an outgrown buffer goes back to its source unless a view of it was handed out', () => {
    const released: Buffer[] = []
    const source: BufferSource = { alloc: (n) => Buffer.alloc(n), release: (buf) => released.push(buf) }
    const b = new ByteBuffer(2, source)
    b.raw('xyz')
    expect(released).toHaveLength(1)
    b.bytes()
    b.raw('x'.repeat(100))
    expect(released).toHaveLength(1)
  })
})
