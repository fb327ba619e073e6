/**
 * Parquet re-framing: several complete Parquet files (what chDB sends, one per block) become one file whose
 * footer lists every row group at its new offset. The files here come from another writer (parquetjs-lite,
 * which also reads the result back), so the join does not depend on ClickHouse's layout; chDB's own
 * per-block files are covered by test/integration/export-formats.test.ts.
 */
import { Writable } from 'node:stream'
import { describe, it, expect } from 'vitest'
import parquet from 'parquetjs-lite'
import { parquetFromBlocks } from '../../engine/export/parquet-frames.js'
import { readStruct, writeStruct } from '../../engine/export/thrift-compact.js'
import { openParquet } from '../helpers/parquet-reader.js'
import { from } from '../helpers/byte-streams.js'

interface Row {
  ts: number
  price: number
  sym: string
}

const SCHEMA = { ts: { type: 'INT64' }, price: { type: 'DOUBLE' }, sym: { type: 'UTF8' } }

const rowsFrom = (start: number, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({
    ts: 1_700_000_000_000 + (start + i) * 60_000,
    price: (start + i) / 3,
    sym: ['BTC', 'ETH', 'Ünï €'][(start + i) % 3]!
  }))

/** One complete Parquet file written by parquetjs-lite (one row group). */
async function file(rows: readonly object[], schema: object = SCHEMA, pageIndex = false): Promise<Buffer> {
  const parts: Buffer[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      parts.push(chunk)
      done()
    }
  })
  // no page indexes, like the export's ClickHouse settings (their absolute offsets could not be moved)
  const w = await parquet.ParquetWriter.openStream(new parquet.ParquetSchema(schema), sink, { pageIndex })
  for (const r of rows) await w.appendRow(r)
  await w.close()
  return Buffer.concat(parts)
}

async function joined(chunks: readonly Uint8Array[]): Promise<{ bytes: Buffer; pieces: number }> {
  const parts: Uint8Array[] = []
  for await (const c of parquetFromBlocks(from(chunks))) parts.push(c)
  return { bytes: Buffer.concat(parts), pieces: parts.length }
}

async function readAll(b: Buffer): Promise<Row[]> {
  const reader = await openParquet(b)
  const cursor = reader.getCursor()
  const rows: Row[] = []
  for (let r = await cursor.next(); r; r = await cursor.next()) {
    rows.push({ ts: Number(r['ts']), price: Number(r['price']), sym: String(r['sym']) })
  }
  await reader.close()
  return rows
}

function footerOf(b: Buffer): Buffer {
  const n = b.readUInt32LE(b.length - 8)
  return b.subarray(b.length - 8 - n, b.length - 8)
}

describe('parquetFromBlocks', () => {
  it('joins per-block files into one file holding every row, in order', async () => {
    const files = [await file(rowsFrom(0, 5)), await file(rowsFrom(5, 3)), await file(rowsFrom(8, 4))]
    const { bytes, pieces } = await joined(files)
    expect(pieces).toBe(4) // magic + first chunks, two more chunks, the footer
    expect(await readAll(bytes)).toEqual(rowsFrom(0, 12))
    const meta = (await parquet.ParquetEnvelopeReader.openBuffer(bytes).then((e: any) => e.readFooter())) as {
      num_rows: unknown
      row_groups: unknown[]
    }
    expect(Number(meta.num_rows)).toBe(12)
    expect(meta.row_groups).toHaveLength(3)
  })

  it('keeps the schema of a lone file and of a file without rows', async () => {
    expect(await readAll((await joined([await file(rowsFrom(0, 2))])).bytes)).toEqual(rowsFrom(0, 2))
    const empty = await joined([await file([])])
    const reader = await openParquet(empty.bytes)
    expect(reader.getSchema().fieldList.map((f) => f.name)).toEqual(['ts', 'price', 'sym'])
    expect(await readAll(empty.bytes)).toEqual([])
  })

  it('fails on a different schema, page indexes, a cut file, two files in one chunk, or no file', async () => {
    const a = await file(rowsFrom(0, 4))
    const other = await file([{ x: 1 }], { x: { type: 'INT64' } })
    await expect(joined([a, other])).rejects.toThrow(/different schema/)
    await expect(joined([await file(rowsFrom(0, 4), SCHEMA, true)])).rejects.toThrow(/page indexes/)
    await expect(joined([a.subarray(0, a.length - 10)])).rejects.toThrow(/not a complete Parquet file/)
    await expect(joined([Buffer.concat([a, await file(rowsFrom(4, 4))])])).rejects.toThrow(/several files/)
    await expect(joined([])).rejects.toThrow(/no Parquet payload/)
  })
})

describe('thrift compact codec', () => {
  it('re-encodes a Parquet footer byte for byte', async () => {
    const footer = footerOf(await file(rowsFrom(0, 10)))
    const { struct, end } = readStruct(footer)
    expect(end).toBe(footer.length)
    expect(Buffer.from(writeStruct(struct))).toEqual(footer)
  })
})
