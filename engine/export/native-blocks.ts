/**
 * @module
 * Decodes ClickHouse's Native format into columns, block by block, for the HDF5 writer (columnar all the
 * way: no row objects). Native is a sequence of blocks; a block is varuint column count, varuint row
 * count, then per column its name, its type name and its values. Supported value types are the export
 * types: (U)Int8/32/64 and Float32/64 as little-endian arrays, String as varuint length + bytes, and
 * Nullable(T) as one null-map byte per row followed by T's values (a default where null).
 *
 * chDB yields whole blocks per chunk; a server's HTTP chunks cut blocks anywhere, so bytes are buffered
 * until a block parses. A failed attempt doubles the bytes awaited before the next one, which keeps the
 * re-parsing linear in the block size.
 */

export type NumericValues =
  Float64Array | Float32Array | BigInt64Array | BigUint64Array | Int32Array | Uint32Array | Uint8Array

export interface NativeColumn {
  readonly name: string
  /** the ClickHouse type name, e.g. `Nullable(Float64)` */
  readonly type: string
  readonly values: NumericValues | string[]
  /** 1 where the row is NULL; only for Nullable columns */
  readonly nullMap: Uint8Array | undefined
  /** longest string in bytes (String columns), else 0 */
  readonly maxBytes: number
}

export interface NativeBlock {
  readonly rows: number
  readonly columns: readonly NativeColumn[]
}

type ArrayCtor = { new (length: number): NumericValues; readonly BYTES_PER_ELEMENT: number }

const NUMERIC: Readonly<Record<string, ArrayCtor>> = {
  Float64: Float64Array,
  Float32: Float32Array,
  Int64: BigInt64Array,
  UInt64: BigUint64Array,
  Int32: Int32Array,
  UInt32: Uint32Array,
  UInt8: Uint8Array
}

/** Thrown inside the parser when the buffered bytes end before the block does. */
class NeedMore extends Error {}

class Cursor {
  pos = 0
  constructor(readonly buf: Buffer) {}

  take(n: number): number {
    const at = this.pos
    if (at + n > this.buf.length) throw new NeedMore()
    this.pos = at + n
    return at
  }

  varuint(): number {
    let result = 0
    let shift = 0
    for (;;) {
      const byte = this.buf[this.take(1)]!
      result += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) return result
      shift += 7
      if (shift > 49) throw new Error('Native varuint too long')
    }
  }

  string(): string {
    const n = this.varuint()
    const at = this.take(n)
    return this.buf.toString('utf8', at, at + n)
  }
}

function readValues(c: Cursor, type: string, rows: number): { values: NumericValues | string[]; maxBytes: number } {
  if (type === 'String') {
    const values = new Array<string>(rows)
    let maxBytes = 0
    for (let i = 0; i < rows; i++) {
      const n = c.varuint()
      const at = c.take(n)
      if (n > maxBytes) maxBytes = n
      values[i] = c.buf.toString('utf8', at, at + n)
    }
    return { values, maxBytes }
  }
  const Ctor = NUMERIC[type]
  if (!Ctor) throw new Error(`Native column type ${type} is not supported by the export decoder`)
  const bytes = rows * Ctor.BYTES_PER_ELEMENT
  const at = c.take(bytes)
  const values = new Ctor(rows)
  // copy (not a view): the source offset need not be aligned, and the chunk is released after the block
  new Uint8Array(values.buffer, 0, bytes).set(c.buf.subarray(at, at + bytes))
  return { values, maxBytes: 0 }
}

function readBlock(c: Cursor): NativeBlock {
  const columnCount = c.varuint()
  const rows = c.varuint()
  const columns: NativeColumn[] = []
  for (let i = 0; i < columnCount; i++) {
    const name = c.string()
    const type = c.string()
    const inner = /^Nullable\((.+)\)$/.exec(type)?.[1]
    let nullMap: Uint8Array | undefined
    if (inner !== undefined) {
      const at = c.take(rows)
      nullMap = Uint8Array.from(c.buf.subarray(at, at + rows))
    }
    columns.push({ name, type, nullMap, ...readValues(c, inner ?? type, rows) })
  }
  return { rows, columns }
}

/** One column of a block as the bytes of its values (fixed-width types only). */
export interface NativeColumnView {
  readonly name: string
  readonly type: string
  /** a view of the chunk, `rows x width` bytes little-endian, not necessarily aligned; not copied */
  readonly bytes: Uint8Array
}

export interface NativeBlockView {
  readonly rows: number
  readonly columns: readonly NativeColumnView[]
}

function readBlockView(c: Cursor): NativeBlockView {
  const columnCount = c.varuint()
  const rows = c.varuint()
  const columns: NativeColumnView[] = []
  for (let i = 0; i < columnCount; i++) {
    const name = c.string()
    const type = c.string()
    const Ctor = NUMERIC[type]
    if (!Ctor) throw new Error(`Native column type ${type} cannot be read as bytes`)
    const at = c.take(rows * Ctor.BYTES_PER_ELEMENT)
    columns.push({ name, type, bytes: c.buf.subarray(at, at + rows * Ctor.BYTES_PER_ELEMENT) })
  }
  return { rows, columns }
}

/** Yields every Native block of the byte stream, whatever the chunk boundaries. */
export function nativeBlocks(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<NativeBlock> {
  return parseBlocks(chunks, readBlock)
}

/**
 * Like `nativeBlocks`, with each column's values as a view of the received bytes instead of a copy (the
 * chunks are never written to again, so the views stay valid). Fixed-width, non-Nullable columns only.
 */
export function nativeBlockViews(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<NativeBlockView> {
  return parseBlocks(chunks, readBlockView)
}

async function* parseBlocks<B>(chunks: AsyncIterable<Uint8Array>, readOne: (c: Cursor) => B): AsyncGenerator<B> {
  let held: Uint8Array[] = []
  let heldBytes = 0
  /** parse again once this many bytes are held */
  let awaited = 0
  function* parseHeld(atEnd: boolean): Generator<B> {
    const buf = held.length === 1 ? Buffer.from(held[0]!.buffer, held[0]!.byteOffset, heldBytes) : Buffer.concat(held)
    const c = new Cursor(buf)
    let done = 0
    try {
      while (c.pos < buf.length) {
        const block = readOne(c)
        done = c.pos
        yield block
      }
    } catch (err) {
      if (!(err instanceof NeedMore)) throw err
      if (atEnd) throw new Error('Native stream ends inside a block')
    }
    held = done === buf.length ? [] : [buf.subarray(done)]
    heldBytes = buf.length - done
    awaited = done === 0 ? heldBytes * 2 : 0
  }
  for await (const chunk of chunks) {
    held.push(chunk)
    heldBytes += chunk.length
    if (heldBytes >= awaited) yield* parseHeld(false)
  }
  if (heldBytes > 0) yield* parseHeld(true)
}
