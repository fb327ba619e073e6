/**
 * Arrow re-framing: several complete IPC streams (what chDB sends, one per block) become one stream with
 * one schema, read back by apache-arrow with every row, including dictionary-encoded columns.
 */
import { describe, it, expect } from 'vitest'
import {
  tableFromArrays,
  tableFromIPC,
  tableToIPC,
  vectorFromArray,
  Dictionary,
  Utf8,
  Int32,
  Table
} from 'apache-arrow'
import { arrowStreamFromBlocks, splitArrowMessages, ARROW_EOS } from '../../engine/export/arrow-frames.js'
import { from, bytes } from '../helpers/byte-streams.js'

function block(start: number, n: number): Uint8Array {
  const ts = BigInt64Array.from({ length: n }, (_, i) => BigInt(1_700_000_000_000 + (start + i) * 1000))
  const price = Float64Array.from({ length: n }, (_, i) => (start + i) / 3)
  return tableToIPC(tableFromArrays({ ts, price }), 'stream')
}

describe('arrowStreamFromBlocks', () => {
  it('joins per-block streams into one stream holding every row', async () => {
    const chunks = [block(0, 5), block(5, 3), block(8, 4)]
    // concatenated as they came, a reader stops at the first end-of-stream marker
    expect(tableFromIPC(Buffer.concat(chunks)).numRows).toBe(5)
    const out = await bytes(arrowStreamFromBlocks(from(chunks)))
    const t = tableFromIPC(out)
    expect(t.numRows).toBe(12)
    expect(t.batches).toHaveLength(3)
    expect(Array.from(t.getChild('price')!)).toEqual(Array.from({ length: 12 }, (_, i) => i / 3))
    const kinds = splitArrowMessages(out).map((m) => m.type)
    expect(kinds).toEqual([1, 3, 3, 3, 0])
    expect(out.subarray(-8)).toEqual(Buffer.from(ARROW_EOS))
  })

  it('passes dictionary batches through (each block may replace the dictionary)', async () => {
    const dict = (values: string[]) =>
      new Table({ sym: vectorFromArray(values, new Dictionary(new Utf8(), new Int32(), 0)) })
    const chunks = [tableToIPC(dict(['a', 'b', 'a']), 'stream'), tableToIPC(dict(['c', 'c']), 'stream')]
    const out = await bytes(arrowStreamFromBlocks(from(chunks)))
    expect(splitArrowMessages(out).map((m) => m.type)).toEqual([1, 2, 3, 2, 3, 0])
    expect(Array.from(tableFromIPC(out).getChild('sym')!)).toEqual(['a', 'b', 'a', 'c', 'c'])
  })

  it('keeps the schema of an empty result', async () => {
    const empty = tableToIPC(tableFromArrays({ ts: new BigInt64Array(0) }), 'stream')
    const t = tableFromIPC(await bytes(arrowStreamFromBlocks(from([empty]))))
    expect(t.numRows).toBe(0)
    expect(t.schema.fields.map((f) => f.name)).toEqual(['ts'])
  })

  it('fails on chunks with different schemas or a message cut in two', async () => {
    const other = tableToIPC(tableFromArrays({ x: Float64Array.of(1) }), 'stream')
    await expect(bytes(arrowStreamFromBlocks(from([block(0, 2), other])))).rejects.toThrow(/schema/)
    const whole = block(0, 50)
    await expect(bytes(arrowStreamFromBlocks(from([whole.subarray(0, whole.length - 40)])))).rejects.toThrow(
      /ends inside/
    )
  })
})
