/**
 * Key-value metadata in export files (the synthetic label, SYNTHETIC_METADATA): the Arrow schema's
 * custom_metadata, added by extending the schema message's flatbuffer, and the Parquet footer's
 * key_value_metadata, on the chDB path (re-framed blocks) and on a server's continuous stream cut at
 * arbitrary points. Read back by independent readers (apache-arrow, parquetjs-lite); rows must be intact,
 * entries already in the file kept unless replaced, and without metadata nothing changes.
 */
import { Writable } from 'node:stream'
import { describe, it, expect } from 'vitest'
import {
  RecordBatchStreamReader,
  Schema,
  Table,
  tableFromArrays,
  tableFromIPC,
  tableToIPC,
  vectorFromArray,
  Dictionary,
  Utf8,
  Int32
} from 'apache-arrow'
import parquet from 'parquetjs-lite'
import { arrowStreamFromBlocks, arrowStreamWithMetadata, splitArrowMessages } from '../../engine/export/arrow-frames.js'
import { parquetFromBlocks } from '../../engine/export/parquet-frames.js'
import { parquetWithMetadata } from '../../engine/export/parquet-metadata.js'
import { SYNTHETIC_METADATA } from '../../engine/export/formats.js'
import { openParquet } from '../helpers/parquet-reader.js'
import { from, bytes } from '../helpers/byte-streams.js'

/** `b` cut into pieces of `size` bytes (the last shorter). */
function cut(b: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let at = 0; at < b.length; at += size) out.push(b.subarray(at, at + size))
  return out
}

function arrowBlock(start: number, n: number, metadata?: Map<string, string>): Uint8Array {
  const ts = BigInt64Array.from({ length: n }, (_, i) => BigInt(1_700_000_000_000 + (start + i) * 1000))
  const price = Float64Array.from({ length: n }, (_, i) => (start + i) / 3)
  const t = tableFromArrays({ ts, price })
  return tableToIPC(metadata ? new Table(new Schema(t.schema.fields, metadata), t.batches) : t, 'stream')
}

const SYNTHETIC = new Map([['tidewatch.synthetic', 'true']])

describe('Arrow schema custom metadata', () => {
  it('the re-framed stream carries it: apache-arrow shows it in schema.metadata, every row intact', async () => {
    const chunks = [arrowBlock(0, 5), arrowBlock(5, 3), arrowBlock(8, 4)]
    const out = await bytes(arrowStreamFromBlocks(from(chunks), SYNTHETIC_METADATA))
    const reader = RecordBatchStreamReader.from(out)
    reader.open()
    expect(reader.schema.metadata).toEqual(SYNTHETIC)
    const t = tableFromIPC(out)
    expect(t.schema.metadata).toEqual(SYNTHETIC)
    expect(t.numRows).toBe(12)
    expect(t.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(['ts:Int64', 'price:Float64'])
    expect(Array.from(t.getChild('price')!)).toEqual(Array.from({ length: 12 }, (_, i) => i / 3))
    // only the schema message changed, and it stays 8-byte framed
    const plain = await bytes(arrowStreamFromBlocks(from(chunks)))
    const [schema] = splitArrowMessages(out)
    const [plainSchema] = splitArrowMessages(plain)
    expect(schema!.end % 8).toBe(0)
    expect(out.subarray(schema!.end)).toEqual(plain.subarray(plainSchema!.end))
  })

  it('without metadata the stream is the blocks joined, schema unchanged', async () => {
    const chunks = [arrowBlock(0, 2), arrowBlock(2, 2)]
    const out = await bytes(arrowStreamFromBlocks(from(chunks)))
    const [schema] = splitArrowMessages(out)
    const [original] = splitArrowMessages(chunks[0]!)
    expect(out.subarray(0, schema!.end)).toEqual(Buffer.from(chunks[0]!.subarray(0, original!.end)))
    expect(tableFromIPC(out).schema.metadata.size).toBe(0)
  })

  it('keeps entries the schema had, replaces one with the same key, keeps dictionaries working', async () => {
    const had = new Map([
      ['pandas', '{"columns":[]}'],
      ['tidewatch.synthetic', 'false']
    ])
    const out = await bytes(arrowStreamFromBlocks(from([arrowBlock(0, 3, had)]), SYNTHETIC_METADATA))
    expect(tableFromIPC(out).schema.metadata).toEqual(
      new Map([
        ['pandas', '{"columns":[]}'],
        ['tidewatch.synthetic', 'true']
      ])
    )
    const dict = (values: string[]) =>
      new Table({ sym: vectorFromArray(values, new Dictionary(new Utf8(), new Int32(), 0)) })
    const chunks = [tableToIPC(dict(['a', 'b', 'a']), 'stream'), tableToIPC(dict(['c']), 'stream')]
    const t = tableFromIPC(await bytes(arrowStreamFromBlocks(from(chunks), SYNTHETIC_METADATA)))
    expect(t.schema.metadata).toEqual(SYNTHETIC)
    expect(Array.from(t.getChild('sym')!)).toEqual(['a', 'b', 'a', 'c'])
  })

  it('a continuous stream (a server payload) cut anywhere: the schema gets it, the rest passes through', async () => {
    const whole = await bytes(arrowStreamFromBlocks(from([arrowBlock(0, 40), arrowBlock(40, 40)])))
    for (const size of [1, 7, 64, 1000, whole.length]) {
      const out = await bytes(arrowStreamWithMetadata(from(cut(whole, size)), SYNTHETIC_METADATA))
      const t = tableFromIPC(out)
      expect(t.schema.metadata, `pieces of ${size}`).toEqual(SYNTHETIC)
      expect(t.numRows).toBe(80)
      expect(Array.from(t.getChild('ts')!).map(Number)).toEqual(
        Array.from({ length: 80 }, (_, i) => 1_700_000_000_000 + i * 1000)
      )
    }
    await expect(bytes(arrowStreamWithMetadata(from([whole.subarray(0, 20)]), SYNTHETIC_METADATA))).rejects.toThrow(
      /no schema/
    )
  })
})

/** One complete Parquet file written by parquetjs-lite (one row group), with optional key-value metadata. */
async function parquetFile(start: number, n: number, metadata: Record<string, string> = {}): Promise<Buffer> {
  const parts: Buffer[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      parts.push(chunk)
      done()
    }
  })
  const schema = new parquet.ParquetSchema({ ts: { type: 'INT64' }, price: { type: 'DOUBLE' } })
  const w = await parquet.ParquetWriter.openStream(schema, sink, { pageIndex: false })
  for (const [k, v] of Object.entries(metadata)) w.setMetadata(k, v)
  for (let i = start; i < start + n; i++) await w.appendRow({ ts: 1_700_000_000_000 + i * 60_000, price: i / 3 })
  await w.close()
  return Buffer.concat(parts)
}

/** The footer's key-value metadata as parquetjs-lite decodes it. */
async function keyValues(b: Buffer): Promise<Record<string, string>> {
  const envelope = await parquet.ParquetEnvelopeReader.openBuffer(b)
  const meta = (await envelope.readFooter()) as { key_value_metadata: { key: string; value: string }[] | null }
  return Object.fromEntries((meta.key_value_metadata ?? []).map((kv) => [kv.key, kv.value]))
}

async function prices(b: Buffer): Promise<number[]> {
  const reader = await openParquet(b)
  const cursor = reader.getCursor()
  const out: number[] = []
  for (let r = await cursor.next(); r; r = await cursor.next()) out.push(Number(r['price']))
  await reader.close()
  return out
}

const thirds = (n: number) => Array.from({ length: n }, (_, i) => i / 3)

describe('Parquet footer key-value metadata', () => {
  it('the joined file carries it, every row intact; without it the footer has none', async () => {
    const files = [await parquetFile(0, 5), await parquetFile(5, 4)]
    const labelled = await bytes(parquetFromBlocks(from(files), SYNTHETIC_METADATA))
    expect(await keyValues(labelled)).toEqual({ 'tidewatch.synthetic': 'true' })
    expect(await prices(labelled)).toEqual(thirds(9))
    const plain = await bytes(parquetFromBlocks(from(files)))
    expect(await keyValues(plain)).toEqual({})
    // the column chunks are the same bytes: only the footer differs
    const dataEnd = plain.length - 8 - plain.readUInt32LE(plain.length - 8)
    expect(labelled.subarray(0, dataEnd)).toEqual(plain.subarray(0, dataEnd))
  })

  it('keeps entries the file had and replaces one with the same key', async () => {
    const had = { owner: 'desk-7', 'tidewatch.synthetic': 'false' }
    const out = await bytes(parquetFromBlocks(from([await parquetFile(0, 3, had)]), SYNTHETIC_METADATA))
    expect(await keyValues(out)).toEqual({ owner: 'desk-7', 'tidewatch.synthetic': 'true' })
  })

  it('a continuous file (a server payload) cut anywhere: only the footer is replaced', async () => {
    const whole = await bytes(parquetFromBlocks(from([await parquetFile(0, 300), await parquetFile(300, 300)])))
    const footer = whole.readUInt32LE(whole.length - 8) + 8
    const dataEnd = whole.length - footer
    // hold back less than the file (pieces go out early), exactly the footer, and more than the file
    for (const hold of [footer, footer + 100, whole.length * 2]) {
      for (const size of [1, 97, 4096]) {
        const pieces: Uint8Array[] = []
        for await (const p of parquetWithMetadata(from(cut(whole, size)), SYNTHETIC_METADATA, hold)) pieces.push(p)
        const out = Buffer.concat(pieces)
        expect(await keyValues(out), `hold ${hold}, pieces of ${size}`).toEqual({ 'tidewatch.synthetic': 'true' })
        expect(out.subarray(0, dataEnd)).toEqual(whole.subarray(0, dataEnd))
        if (hold < whole.length / 2) expect(pieces.length).toBeGreaterThan(1) // streamed, not held whole
      }
    }
    expect(await prices(await bytes(parquetWithMetadata(from(cut(whole, 500)), SYNTHETIC_METADATA)))).toEqual(
      thirds(600)
    )
  })

  it('a server file whose footer is longer than what is held back fails instead of going out unlabelled', async () => {
    const whole = await bytes(parquetFromBlocks(from([await parquetFile(0, 50)])))
    const footer = whole.readUInt32LE(whole.length - 8) + 8
    await expect(bytes(parquetWithMetadata(from(cut(whole, 10)), SYNTHETIC_METADATA, footer - 10))).rejects.toThrow(
      /footer longer/
    )
    await expect(bytes(parquetWithMetadata(from([whole.subarray(0, 100)]), SYNTHETIC_METADATA))).rejects.toThrow(/PAR1/)
  })
})
