/**
 * The Native decoder behind HDF5 exports: columns come out exactly as written, whatever the chunk
 * boundaries (a server's HTTP chunks cut blocks anywhere; chDB sends whole blocks).
 */
import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { nativeBlocks, type NativeBlock } from '../../engine/export/native-blocks.js'
import { from } from '../helpers/byte-streams.js'

function varuint(n: number): number[] {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80)
    n = Math.floor(n / 128)
  }
  out.push(n)
  return out
}

function str(s: string): Buffer {
  const b = Buffer.from(s)
  return Buffer.concat([Buffer.from(varuint(b.length)), b])
}

/** A Native block: ts Int64, price Nullable(Float64), sym String. */
function block(start: number, rows: number): Buffer {
  const ts = BigInt64Array.from({ length: rows }, (_, i) => BigInt(1_700_000_000_000 + start + i))
  const price = Float64Array.from({ length: rows }, (_, i) => ((start + i) % 3 === 0 ? 0 : (start + i) / 7))
  const nulls = Uint8Array.from({ length: rows }, (_, i) => ((start + i) % 3 === 0 ? 1 : 0))
  const syms = Array.from({ length: rows }, (_, i) => ['BTC', 'Ünï €', ''][(start + i) % 3]!)
  return Buffer.concat([
    Buffer.from([...varuint(3), ...varuint(rows)]),
    str('ts'),
    str('Int64'),
    Buffer.from(ts.buffer),
    str('price'),
    str('Nullable(Float64)'),
    Buffer.from(nulls),
    Buffer.from(price.buffer),
    str('sym'),
    str('String'),
    ...syms.map(str)
  ])
}

async function decode(chunks: readonly Uint8Array[]): Promise<NativeBlock[]> {
  const out: NativeBlock[] = []
  for await (const b of nativeBlocks(from(chunks))) out.push(b)
  return out
}

const flat = (blocks: NativeBlock[], col: number) =>
  blocks.flatMap((b) => Array.from(b.columns[col]!.values as ArrayLike<unknown>))

describe('nativeBlocks', () => {
  const stream = Buffer.concat([block(0, 200), block(200, 1), block(201, 300)])

  it('decodes whole blocks into typed columns', async () => {
    const blocks = await decode([stream])
    expect(blocks.map((b) => b.rows)).toEqual([200, 1, 300])
    const [ts, price, sym] = blocks[0]!.columns
    expect(ts!.values).toBeInstanceOf(BigInt64Array)
    expect(price!.type).toBe('Nullable(Float64)')
    expect(Array.from(price!.nullMap!.subarray(0, 4))).toEqual([1, 0, 0, 1])
    expect(sym!.values.slice(0, 3)).toEqual(['BTC', 'Ünï €', ''])
    expect(sym!.maxBytes).toBe(Buffer.byteLength('Ünï €'))
  })

  it('gives the same columns at any chunk boundaries', async () => {
    const whole = await decode([stream])
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: stream.length }), { maxLength: 20 }), async (at) => {
        const points = [...new Set(at)].sort((a, b) => a - b)
        const chunks = [0, ...points].map((p, i) => stream.subarray(p, points[i] ?? stream.length))
        const got = await decode(chunks)
        for (const col of [0, 1, 2]) expect(flat(got, col)).toEqual(flat(whole, col))
      }),
      { seed: 42, numRuns: 200 }
    )
  })

  it('copes with one-byte chunks', async () => {
    const chunks = Array.from(stream, (b) => Uint8Array.of(b))
    expect((await decode(chunks)).reduce((n, b) => n + b.rows, 0)).toBe(501)
  })

  it('fails on a truncated stream and on an unsupported type', async () => {
    await expect(decode([stream.subarray(0, stream.length - 3)])).rejects.toThrow(/ends inside a block/)
    const odd = Buffer.concat([Buffer.from([1, 1]), str('d'), str('Decimal(10, 2)'), Buffer.alloc(8)])
    await expect(decode([odd])).rejects.toThrow(/not supported/)
  })
})
