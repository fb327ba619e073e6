/**
 * @module
 * Parquet on chDB without a temp file. A streamed chDB query yields each block as its own complete Parquet
 * file (`PAR1`, column chunks, footer, footer length, `PAR1`); concatenated they are unreadable. A Parquet
 * file is its column chunks followed by one footer (`FileMetaData`, Thrift compact) that lists every row
 * group with the absolute file offset of each column chunk, so the per-block files are joined here:
 *
 * - the first file's `PAR1` is kept; of every file, only its column chunks go out, as they came (no copy);
 * - each file's row groups are taken from its footer, their offsets moved by where its chunks landed, and
 *   re-encoded at once (a few hundred bytes per column; the chunk itself is not retained);
 * - after the last file, one footer: the first file's metadata with every row group and the total rows
 *   (and the export's key-value metadata, if any: parquet-metadata.ts).
 *
 * Each row group is one chDB block (`max_block_size` rows). Offsets that point past the column chunks
 * (page indexes, bloom filters) cannot be moved safely, so the query must not write them
 * (`output_format_parquet_write_page_index = 0`, `output_format_parquet_write_bloom_filter = 0`). Every
 * file must have the first one's schema, and its column chunks must lie in order between its magic and
 * its footer (see `checkLayout`).
 */
import type { MetadataEntries } from './formats.js'
import { addKeyValueMetadata, footerBytes } from './parquet-metadata.js'
import { CT, getField, readStruct, removeField, setField, writeStruct, type ThriftStruct } from './thrift-compact.js'

const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]) // "PAR1"
/** `PAR1` + footer length (u32 LE) + `PAR1`: the smallest file */
const FRAME_BYTES = 12

/** Field ids of the Parquet Thrift structs used here (parquet-format `parquet.thrift`). */
const FileMetaData = { schema: 2, numRows: 3, rowGroups: 4 } as const
const RowGroup = { columns: 1, numRows: 3, fileOffset: 5, totalCompressedSize: 6, ordinal: 7 } as const
const ColumnChunk = {
  fileOffset: 2,
  metaData: 3,
  offsetIndexOffset: 4,
  columnIndexOffset: 6,
  cryptoMetaData: 8
} as const
const ColumnMetaData = {
  totalCompressedSize: 7,
  dataPageOffset: 9,
  indexPageOffset: 10,
  dictionaryPageOffset: 11,
  bloomFilterOffset: 14
} as const

/** Parquet's row group ordinal is an i16: past this many row groups it is left out (it is optional). */
const MAX_ORDINAL = 32_767

/**
 * The joined bytes of per-block Parquet files, as one Parquet file whose footer also holds `metadata`.
 * Errors leave the output unfinished.
 */
export async function* parquetFromBlocks(
  files: AsyncIterable<Uint8Array>,
  metadata?: MetadataEntries
): AsyncGenerator<Uint8Array> {
  let first: { meta: ThriftStruct; schema: Uint8Array } | null = null
  const rowGroups: Uint8Array[] = []
  let rows = 0n
  let written = BigInt(MAGIC.length)
  for await (const file of files) {
    const { meta, chunks } = splitFile(file)
    const schema = schemaBytes(meta)
    if (first && !sameBytes(schema, first.schema)) throw new Error('parquet export: a block has a different schema')
    for (const group of listOf(meta, FileMetaData.rowGroups)) {
      moveRowGroup(group, written - BigInt(MAGIC.length), rowGroups.length)
      rows += i64(group, RowGroup.numRows)
      rowGroups.push(writeStruct(group))
    }
    written += BigInt(chunks.length)
    if (!first) {
      first = { meta, schema }
      // the first bytes out: the magic and the first chunks in one piece
      const head = new Uint8Array(MAGIC.length + chunks.length)
      head.set(MAGIC)
      head.set(chunks, MAGIC.length)
      yield head
    } else if (chunks.length > 0) yield chunks
  }
  // chDB answers even an empty result with one (schema-only) file
  if (!first) throw new Error('parquet export: the query produced no Parquet payload')
  yield footer(first.meta, rowGroups, rows, metadata)
}

/** Checks the framing of one complete Parquet file and returns its metadata and column chunk bytes. */
function splitFile(file: Uint8Array): { meta: ThriftStruct; chunks: Uint8Array } {
  const n = file.length
  if (n < FRAME_BYTES || !hasMagic(file, 0) || !hasMagic(file, n - 4)) {
    throw new Error('parquet export: a block is not a complete Parquet file')
  }
  const footerLength = new DataView(file.buffer, file.byteOffset + n - 8, 4).getUint32(0, true)
  const footerAt = n - 8 - footerLength
  if (footerAt < MAGIC.length) throw new Error('parquet export: bad footer length')
  const { struct: meta } = readStruct(file.subarray(footerAt, n - 8))
  const chunks = file.subarray(MAGIC.length, footerAt)
  const ranges: [bigint, bigint][] = []
  for (const group of listOf(meta, FileMetaData.rowGroups)) {
    for (const column of listOf(group, RowGroup.columns)) {
      const md = structOf(column, ColumnChunk.metaData)
      if (!md || getField(column, ColumnChunk.cryptoMetaData)) {
        throw new Error('parquet export: a column chunk without plain metadata (encrypted?)')
      }
      for (const id of [ColumnChunk.offsetIndexOffset, ColumnChunk.columnIndexOffset]) {
        if (getField(column, id)) throw new Error('parquet export: blocks must be written without page indexes')
      }
      if (getField(md, ColumnMetaData.bloomFilterOffset)) {
        throw new Error('parquet export: blocks must be written without bloom filters')
      }
      const dictionary = getField(md, ColumnMetaData.dictionaryPageOffset)?.value as bigint | undefined
      const start = dictionary ?? i64(md, ColumnMetaData.dataPageOffset)
      ranges.push([start, start + i64(md, ColumnMetaData.totalCompressedSize)])
    }
  }
  checkLayout(ranges, BigInt(footerAt), BigInt(footerLength))
  return { meta, chunks }
}

/**
 * Column chunks must lie between the magic and the footer, in order, without overlap, the first right
 * after the magic. ClickHouse writes a copy of each chunk's metadata after it, so small gaps are normal;
 * a gap after the last chunk longer than the footer means an earlier file in the same payload, whose
 * offsets would all be wrong.
 */
function checkLayout(ranges: readonly [bigint, bigint][], footerAt: bigint, footerLength: bigint): void {
  let end = BigInt(MAGIC.length)
  for (const [i, [start, stop]] of ranges.entries()) {
    if ((i === 0 && start !== end) || start < end || stop > footerAt) {
      throw new Error('parquet export: unexpected column chunk layout in a block')
    }
    end = stop
  }
  if (footerAt - end > footerLength) {
    throw new Error('parquet export: unexpected bytes before the footer of a block (several files in one payload?)')
  }
}

/** Moves every absolute offset of a row group by `by` bytes and sets its ordinal. */
function moveRowGroup(group: ThriftStruct, by: bigint, ordinal: number): void {
  const move = (s: ThriftStruct, id: number) => {
    const f = getField(s, id)
    if (f) f.value = (f.value as bigint) + by
  }
  move(group, RowGroup.fileOffset)
  if (ordinal <= MAX_ORDINAL) setField(group, RowGroup.ordinal, CT.I16, ordinal)
  else removeField(group, RowGroup.ordinal)
  for (const column of listOf(group, RowGroup.columns)) {
    // deprecated, and writers disagree on what it points at; moved like the others when set
    const offset = getField(column, ColumnChunk.fileOffset)
    if (offset && (offset.value as bigint) > 0n) move(column, ColumnChunk.fileOffset)
    const md = structOf(column, ColumnChunk.metaData)!
    move(md, ColumnMetaData.dataPageOffset)
    move(md, ColumnMetaData.indexPageOffset)
    move(md, ColumnMetaData.dictionaryPageOffset)
  }
}

/** The closing bytes: the first file's metadata with all row groups, the total and `metadata`, its length, `PAR1`. */
function footer(
  meta: ThriftStruct,
  rowGroups: readonly Uint8Array[],
  rows: bigint,
  metadata: MetadataEntries | undefined
): Uint8Array {
  setField(meta, FileMetaData.numRows, CT.I64, rows)
  setField(meta, FileMetaData.rowGroups, CT.LIST, {
    kind: 'list',
    wire: CT.LIST,
    elemType: CT.STRUCT,
    items: rowGroups.map((bytes) => ({ kind: 'raw', bytes }))
  })
  if (metadata) addKeyValueMetadata(meta, metadata)
  return footerBytes(meta)
}

function schemaBytes(meta: ThriftStruct): Uint8Array {
  const schema = getField(meta, FileMetaData.schema)
  if (!schema) throw new Error('parquet export: a block has no schema')
  return writeStruct({ kind: 'struct', fields: [schema] })
}

function i64(s: ThriftStruct, id: number): bigint {
  const v = getField(s, id)?.value
  if (typeof v !== 'bigint') throw new Error(`parquet export: field ${id} missing or not an i64`)
  return v
}

function listOf(s: ThriftStruct, id: number): ThriftStruct[] {
  const f = getField(s, id)
  if (!f) return []
  if (f.type !== CT.LIST) throw new Error(`parquet export: field ${id} is not a list`)
  return (f.value as { items: ThriftStruct[] }).items
}

function structOf(s: ThriftStruct, id: number): ThriftStruct | undefined {
  const f = getField(s, id)
  return f?.type === CT.STRUCT ? (f.value as ThriftStruct) : undefined
}

function hasMagic(b: Uint8Array, at: number): boolean {
  return b[at] === 0x50 && b[at + 1] === 0x41 && b[at + 2] === 0x52 && b[at + 3] === 0x31
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}
