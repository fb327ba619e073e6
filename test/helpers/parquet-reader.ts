import { createRequire } from 'node:module'
import parquet from 'parquetjs-lite'
import { expect } from 'vitest'

export interface ParquetCursor {
  next(): Promise<Record<string, unknown> | null>
}

/**
 * Opens Parquet bytes with parquetjs-lite, an independent reader of what we export. parquetjs-lite (2018)
 * refuses FileMetaData version 2 and predates the RLE_DICTIONARY name, which ClickHouse writes;
 * RLE_DICTIONARY data pages are encoded exactly like PLAIN_DICTIONARY ones, so both are bridged here
 * without touching the decoding. It also returns the values of a dictionary-encoded column as strings
 * (its dictionary decoder ends in `.toString()`); the cursor turns those of numeric columns back into
 * numbers (the string is JavaScript's shortest round-trip form, so no precision is lost below 2^53).
 */
export async function openParquet(b: Buffer) {
  const codecs = createRequire(import.meta.url)('parquetjs-lite/lib/codec') as Record<string, unknown>
  codecs['RLE_DICTIONARY'] ??= codecs['PLAIN_DICTIONARY']
  const envelope = await parquet.ParquetEnvelopeReader.openBuffer(b)
  const meta = await envelope.readFooter()
  expect([1, 2]).toContain(meta.version)
  meta.version = 1
  const reader = new parquet.ParquetReader(meta, envelope) as {
    getCursor(): ParquetCursor
    getSchema(): { fieldList: { name: string; primitiveType?: string }[] }
    close(): Promise<void>
  }
  const numeric = reader
    .getSchema()
    .fieldList.filter((f) => f.primitiveType !== undefined && f.primitiveType !== 'BYTE_ARRAY')
    .map((f) => f.name)
  return {
    getSchema: () => reader.getSchema(),
    close: () => reader.close(),
    getCursor(): ParquetCursor {
      const cursor = reader.getCursor()
      return {
        async next() {
          const row = await cursor.next()
          for (const name of numeric) if (typeof row?.[name] === 'string') row[name] = Number(row[name])
          return row
        }
      }
    }
  }
}
