/**
 * @module
 * File-level key-value metadata in a Parquet footer (`FileMetaData.key_value_metadata`, what pyarrow shows
 * as `schema.metadata` and parquetjs as `metadata`). ClickHouse writes none and has no setting for it.
 * On chDB the footer is written here anyway (parquet-frames.ts); a ClickHouse server's file is one stream
 * whose footer is rewritten by `parquetWithMetadata`. Only the footer changes: every offset in it points
 * before it, so the column chunks, page indexes and bloom filters stay where they are.
 */
import type { MetadataEntries } from './formats.js'
import { CT, getField, readStruct, setField, writeStruct, type ThriftStruct } from './thrift-compact.js'

const MAGIC = Buffer.from('PAR1')
/** `FileMetaData.key_value_metadata` (list<KeyValue>), `KeyValue.key` and `KeyValue.value` (parquet.thrift) */
const KEY_VALUE_METADATA = 5
const KEY = 1
const VALUE = 2

/**
 * The longest footer `parquetWithMetadata` can rewrite: it holds back this many bytes of the stream. A
 * footer is ~80 bytes per column per row group; a ClickHouse server writes row groups of up to 1M rows
 * (`output_format_parquet_row_group_size`), so 1 MiB covers ~1,000 row groups of the candle export's 11
 * columns, ~1 billion rows.
 */
export const MAX_FOOTER_BYTES = 1 << 20

/** Adds `entries` to the footer's key-value metadata; an existing entry with one of their keys is dropped. */
export function addKeyValueMetadata(meta: ThriftStruct, entries: MetadataEntries): void {
  const replaced = new Set(entries.map(([key]) => key))
  const field = getField(meta, KEY_VALUE_METADATA)
  const old = field?.type === CT.LIST ? (field.value as { items: ThriftStruct[] }).items : []
  const kept = old.filter((kv) => {
    const key = getField(kv, KEY)?.value
    return !(key instanceof Uint8Array && replaced.has(Buffer.from(key).toString('utf8')))
  })
  const added: ThriftStruct[] = entries.map(([key, value]) => ({
    kind: 'struct',
    fields: [
      { id: KEY, type: CT.BINARY, value: Buffer.from(key, 'utf8') },
      { id: VALUE, type: CT.BINARY, value: Buffer.from(value, 'utf8') }
    ]
  }))
  setField(meta, KEY_VALUE_METADATA, CT.LIST, {
    kind: 'list',
    wire: CT.LIST,
    elemType: CT.STRUCT,
    items: [...kept, ...added]
  })
}

/** The closing bytes of a Parquet file: the encoded footer, its length (u32 LE), `PAR1`. */
export function footerBytes(meta: ThriftStruct): Uint8Array {
  const body = writeStruct(meta)
  const out = new Uint8Array(body.length + 8)
  out.set(body)
  new DataView(out.buffer).setUint32(body.length, body.length, true)
  out.set(MAGIC, body.length + 4)
  return out
}

/**
 * One Parquet file streamed in pieces (a ClickHouse server's payload, cut anywhere), with `entries` in its
 * footer. The last `holdBytes` are held back until the stream ends (the footer is somewhere in them), the
 * rest passes through as it came; the old footer is then replaced. Fails when the footer is longer.
 */
export async function* parquetWithMetadata(
  bytes: AsyncIterable<Uint8Array>,
  entries: MetadataEntries,
  holdBytes = MAX_FOOTER_BYTES + 8
): AsyncGenerator<Uint8Array> {
  const held: Uint8Array[] = []
  let heldBytes = 0
  for await (const chunk of bytes) {
    if (chunk.length === 0) continue
    held.push(chunk)
    heldBytes += chunk.length
    while (heldBytes - held[0]!.length >= holdBytes) {
      const out = held.shift()!
      heldBytes -= out.length
      yield out
    }
  }
  const tail = Buffer.concat(held)
  const n = tail.length
  if (n < 12 || !tail.subarray(n - 4).equals(MAGIC)) throw new Error('parquet export: the file does not end in PAR1')
  const footerAt = n - 8 - tail.readUInt32LE(n - 8)
  if (footerAt < 0) throw new Error(`parquet export: a footer longer than ${holdBytes - 8} bytes cannot be labelled`)
  const { struct: meta } = readStruct(tail.subarray(footerAt, n - 8))
  addKeyValueMetadata(meta, entries)
  yield Buffer.concat([tail.subarray(0, footerAt), footerBytes(meta)])
}
