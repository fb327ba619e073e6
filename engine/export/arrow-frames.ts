/**
 * @module
 * One Arrow IPC stream from chDB's ArrowStream chunks. chDB emits each block as a complete IPC stream
 * (schema, record batch, end-of-stream marker); concatenated they are not one stream. This keeps the
 * first chunk's schema, every dictionary and record batch message in order, and writes one end-of-stream
 * marker at the end. Bodies are copied through untouched.
 *
 * IPC framing (arrow.apache.org/docs/format/Columnar.html#encapsulated-message-format): a message is
 * 0xFFFFFFFF, int32 metadata length, a `Message` flatbuffer (padded to 8 bytes), then `bodyLength` bytes
 * of body; length 0 is the end-of-stream marker. Pre-1.0 writers omit the 0xFFFFFFFF continuation.
 */
import { schemaMessageWith } from './arrow-schema-metadata.js'
import type { MetadataEntries } from './formats.js'

/** `MessageHeader` union tags of Arrow's Message.fbs. */
export const ARROW_SCHEMA = 1
export const ARROW_DICTIONARY_BATCH = 2
export const ARROW_RECORD_BATCH = 3

/** The end-of-stream marker: continuation, then metadata length 0. */
export const ARROW_EOS = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0)

export interface ArrowMessage {
  /** header type (1 schema, 2 dictionary batch, 3 record batch, ...), 0 for the end-of-stream marker */
  readonly type: number
  /** byte range of the whole message (prefix, metadata and body) in the chunk */
  readonly start: number
  readonly end: number
}

/** Reads `header_type` (field 1) and `bodyLength` (field 3) of the `Message` table at `meta`. */
function readMessage(view: DataView, meta: number): { type: number; bodyLength: number } {
  const table = meta + view.getUint32(meta, true)
  const vtable = table - view.getInt32(table, true)
  const vtableSize = view.getUint16(vtable, true)
  const field = (i: number) => (4 + 2 * i < vtableSize ? view.getUint16(vtable + 4 + 2 * i, true) : 0)
  const typeAt = field(1)
  const lengthAt = field(3)
  return {
    type: typeAt === 0 ? 0 : view.getUint8(table + typeAt),
    bodyLength: lengthAt === 0 ? 0 : Number(view.getBigInt64(table + lengthAt, true))
  }
}

/** The message starting at `pos`, or null when the chunk ends before it does. */
export function readMessageAt(chunk: Uint8Array, pos: number): ArrowMessage | null {
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  if (pos + 4 > chunk.length) return null
  const prefix = view.getInt32(pos, true) === -1 ? 8 : 4
  if (pos + prefix > chunk.length) return null
  const metaLength = view.getInt32(pos + prefix - 4, true)
  if (metaLength === 0) return { type: 0, start: pos, end: pos + prefix }
  const meta = pos + prefix
  if (metaLength < 0) throw new Error('ArrowStream message with a negative metadata length')
  if (meta + metaLength > chunk.length) return null
  const { type, bodyLength } = readMessage(view, meta)
  const end = meta + metaLength + bodyLength
  return end > chunk.length ? null : { type, start: pos, end }
}

/** Splits a chunk holding whole IPC messages into messages; throws when one is cut off. */
export function splitArrowMessages(chunk: Uint8Array): ArrowMessage[] {
  const out: ArrowMessage[] = []
  let pos = 0
  while (pos < chunk.length) {
    const m = readMessageAt(chunk, pos)
    if (m === null) throw new Error('ArrowStream chunk ends inside a message')
    out.push(m)
    pos = m.end
  }
  return out
}

/**
 * Re-frames per-block ArrowStream payloads into one IPC stream. Every chunk must repeat the first
 * chunk's schema byte for byte (one query, one schema); anything else fails rather than produce a file
 * no reader accepts. With `metadata`, the schema that goes out carries it (arrow-schema-metadata.ts).
 */
export async function* arrowStreamFromBlocks(
  chunks: AsyncIterable<Uint8Array>,
  metadata?: MetadataEntries
): AsyncGenerator<Uint8Array> {
  let schema: Buffer | undefined
  for await (const chunk of chunks) {
    let runStart = -1
    let runEnd = -1
    const runs: Uint8Array[] = []
    const flush = () => {
      if (runStart !== -1) runs.push(chunk.subarray(runStart, runEnd))
      runStart = -1
    }
    for (const m of splitArrowMessages(chunk)) {
      let keep = m.type === ARROW_DICTIONARY_BATCH || m.type === ARROW_RECORD_BATCH
      if (m.type === ARROW_SCHEMA) {
        const bytes = chunk.subarray(m.start, m.end)
        if (schema === undefined) {
          schema = Buffer.from(bytes)
          if (metadata) {
            flush()
            runs.push(schemaMessageWith(bytes, metadata)) // a new message, in place of the original
          } else keep = true
        } else if (!schema.equals(bytes)) {
          throw new Error('ArrowStream chunks disagree on the schema')
        }
      } else if (m.type !== 0 && !keep) {
        throw new Error(`unexpected Arrow IPC message type ${m.type}`)
      }
      if (keep && runStart !== -1 && runEnd === m.start) runEnd = m.end
      else if (keep) {
        flush()
        runStart = m.start
        runEnd = m.end
      } else flush()
    }
    flush()
    for (const run of runs) yield run
  }
  if (schema === undefined) throw new Error('ArrowStream result carried no schema')
  yield ARROW_EOS
}

/**
 * One continuous IPC stream (a ClickHouse server's payload, cut anywhere) whose schema, its first message,
 * carries `metadata`; every other byte passes through as it came.
 */
export async function* arrowStreamWithMetadata(
  chunks: AsyncIterable<Uint8Array>,
  metadata: MetadataEntries
): AsyncGenerator<Uint8Array> {
  let head: Buffer | null = Buffer.alloc(0)
  for await (const chunk of chunks) {
    if (head === null) {
      yield chunk
      continue
    }
    head = Buffer.concat([head, chunk])
    const first = readMessageAt(head, 0)
    if (first === null) continue
    if (first.type !== ARROW_SCHEMA) throw new Error(`ArrowStream starts with message type ${first.type}, not a schema`)
    yield Buffer.concat([schemaMessageWith(head.subarray(0, first.end), metadata), head.subarray(first.end)])
    head = null
  }
  if (head !== null) throw new Error('ArrowStream result carried no schema')
}
