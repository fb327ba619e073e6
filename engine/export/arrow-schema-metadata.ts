/**
 * @module
 * Schema-level custom metadata (`Schema.custom_metadata`, `schema.metadata` in apache-arrow and pyarrow)
 * added to the schema message of an Arrow IPC stream. ClickHouse writes none and has no setting for it, so
 * the message's `Message` flatbuffer is extended here, without a flatbuffers library and without
 * re-encoding what ClickHouse wrote (Message.fbs, Schema.fbs):
 *
 * a flatbuffer's offsets to tables, vectors and strings are unsigned and point forward, so new tables can
 * be put in front of the old buffer and point into it. The new bytes hold a root offset, a new `Message`
 * (same version, header type Schema), a new `Schema` whose `fields` and `features` are the old vectors, and
 * the `custom_metadata` vector: the old entries whose keys are not replaced, then the new `KeyValue`s. The
 * old root, `Message` and `Schema` stay behind unreferenced. The new bytes are a multiple of 8 long, so
 * every old value keeps its alignment (readers that verify the flatbuffer check it).
 */
import type { MetadataEntries } from './formats.js'

/** Field ids (vtable slots) of the tables used here. A union takes two slots: its type, then its value. */
const Message = { version: 0, headerType: 1, header: 2, bodyLength: 3, customMetadata: 4 } as const
const Schema = { endianness: 0, fields: 1, customMetadata: 2, features: 3 } as const
const KeyValue = { key: 0, value: 1 } as const
/** `MessageHeader.Schema` */
const SCHEMA_HEADER = 1

/** Reads the old flatbuffer: table fields by id, offsets resolved to absolute positions. */
class FlatReader {
  private readonly view: DataView
  constructor(private readonly b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  }
  /** what the offset at `at` points to */
  target(at: number): number {
    return at + this.view.getUint32(at, true)
  }
  /** position of field `id` of the table at `table`, or -1 when absent */
  field(table: number, id: number): number {
    const vtable = table - this.view.getInt32(table, true)
    const size = this.view.getUint16(vtable, true)
    const off = 4 + 2 * id < size ? this.view.getUint16(vtable + 4 + 2 * id, true) : 0
    return off === 0 ? -1 : table + off
  }
  i16(at: number): number {
    return this.view.getInt16(at, true)
  }
  u8(at: number): number {
    return this.view.getUint8(at)
  }
  i64(at: number): bigint {
    return this.view.getBigInt64(at, true)
  }
  /** the tables a vector of offsets points to */
  tables(vector: number): number[] {
    const n = this.view.getUint32(vector, true)
    return Array.from({ length: n }, (_, i) => this.target(vector + 4 + 4 * i))
  }
  /** the string the offset at `at` points to */
  string(at: number): string {
    const s = this.target(at)
    return Buffer.from(this.b.subarray(s + 4, s + 4 + this.view.getUint32(s, true))).toString('utf8')
  }
}

/** A position known once everything is written. */
type Target = () => number
type TableField =
  | { readonly id: number; readonly kind: 'offset'; readonly target: Target }
  | { readonly id: number; readonly kind: 'i16' | 'u8'; readonly value: number }

/**
 * Writes tables, vectors and strings front to back, each aligned to its widest value; offsets are patched
 * by `finish`, once every position is known. `finish` appends the old buffer: `old(pos)` is the position
 * its byte `pos` will have.
 */
class FlatWriter {
  private buf = new Uint8Array(512)
  private len = 0
  private prefix = -1
  private readonly patches: { at: number; target: Target }[] = []

  old(pos: number): Target {
    return () => this.prefix + pos
  }

  private view(n: number): DataView {
    if (this.len + n > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n))
      next.set(this.buf.subarray(0, this.len))
      this.buf = next
    }
    const v = new DataView(this.buf.buffer, this.len, n)
    this.len += n
    return v
  }
  private u8(v: number): void {
    this.view(1).setUint8(0, v)
  }
  private u16(v: number): void {
    this.view(2).setUint16(0, v, true)
  }
  private u32(v: number): void {
    this.view(4).setUint32(0, v, true)
  }
  private align(n: number): void {
    while (this.len % n !== 0) this.u8(0)
  }
  offset(target: Target): void {
    this.align(4)
    this.patches.push({ at: this.len, target })
    this.u32(0)
  }
  /** a vtable, then its table (offsets, then i16s, then u8s); returns the table's position */
  table(fields: readonly TableField[]): number {
    const width = (f: TableField) => (f.kind === 'offset' ? 4 : f.kind === 'i16' ? 2 : 1)
    const ordered = [...fields].sort((a, b) => width(b) - width(a))
    const at = new Map<number, number>()
    let size = 4 // the table starts with its soffset to the vtable
    for (const f of ordered) {
      at.set(f.id, size)
      size += width(f)
    }
    const slots = Math.max(...fields.map((f) => f.id)) + 1
    this.align(2)
    const vtable = this.len
    this.u16(4 + 2 * slots)
    this.u16(size)
    for (let id = 0; id < slots; id++) this.u16(at.get(id) ?? 0)
    this.align(4)
    const table = this.len
    this.view(4).setInt32(0, table - vtable, true) // the vtable is at table - soffset
    for (const f of ordered) {
      if (f.kind === 'offset') this.offset(f.target)
      else if (f.kind === 'i16') this.view(2).setInt16(0, f.value, true)
      else this.u8(f.value)
    }
    return table
  }
  vector(targets: readonly Target[]): number {
    this.align(4)
    const at = this.len
    this.u32(targets.length)
    for (const t of targets) this.offset(t)
    return at
  }
  string(s: string): number {
    const b = Buffer.from(s, 'utf8')
    this.align(4)
    const at = this.len
    this.u32(b.length)
    for (const byte of b) this.u8(byte)
    this.u8(0)
    return at
  }
  /** the written bytes padded to 8, then `old` padded to 8, with every offset patched */
  finish(old: Uint8Array): Uint8Array {
    this.align(8)
    this.prefix = this.len
    const out = new Uint8Array(this.len + old.length + ((8 - (old.length % 8)) % 8))
    out.set(this.buf.subarray(0, this.len))
    out.set(old, this.len)
    const view = new DataView(out.buffer)
    for (const { at, target } of this.patches) {
      const to = target()
      if (to <= at) throw new Error('arrow schema metadata: an offset would point backwards')
      view.setUint32(at, to - at, true)
    }
    return out
  }
}

/**
 * The `Message` flatbuffer of a schema message with `entries` added to the schema's custom metadata; an
 * existing entry with one of their keys is dropped.
 */
export function schemaMetadataWith(meta: Uint8Array, entries: MetadataEntries): Uint8Array {
  const r = new FlatReader(meta)
  const message = r.target(0)
  const typeAt = r.field(message, Message.headerType)
  const headerAt = r.field(message, Message.header)
  if (typeAt === -1 || r.u8(typeAt) !== SCHEMA_HEADER || headerAt === -1) {
    throw new Error('arrow schema metadata: not a schema message')
  }
  const lengthAt = r.field(message, Message.bodyLength)
  if (lengthAt !== -1 && r.i64(lengthAt) !== 0n) throw new Error('arrow schema metadata: a schema message with a body')
  const schema = r.target(headerAt)
  const replaced = new Set(entries.map(([key]) => key))
  const oldMetadata = r.field(schema, Schema.customMetadata)
  const kept = (oldMetadata === -1 ? [] : r.tables(r.target(oldMetadata))).filter((kv) => {
    const key = r.field(kv, KeyValue.key)
    return key === -1 || !replaced.has(r.string(key))
  })

  const w = new FlatWriter()
  const copied = (table: number, id: number, kind: 'offset' | 'i16'): TableField[] => {
    const at = r.field(table, id)
    if (at === -1) return []
    return [kind === 'offset' ? { id, kind, target: w.old(r.target(at)) } : { id, kind, value: r.i16(at) }]
  }
  let messageAt = 0
  let schemaAt = 0
  let vectorAt = 0
  const entryAt: number[] = []
  w.offset(() => messageAt) // the root
  messageAt = w.table([
    ...copied(message, Message.version, 'i16'),
    { id: Message.headerType, kind: 'u8', value: SCHEMA_HEADER },
    { id: Message.header, kind: 'offset', target: () => schemaAt },
    ...copied(message, Message.customMetadata, 'offset')
  ])
  schemaAt = w.table([
    ...copied(schema, Schema.endianness, 'i16'),
    ...copied(schema, Schema.fields, 'offset'),
    { id: Schema.customMetadata, kind: 'offset', target: () => vectorAt },
    ...copied(schema, Schema.features, 'offset')
  ])
  vectorAt = w.vector([...kept.map((kv) => w.old(kv)), ...entries.map((_, i) => () => entryAt[i]!)])
  for (const [key, value] of entries) {
    let keyAt = 0
    let valueAt = 0
    entryAt.push(
      w.table([
        { id: KeyValue.key, kind: 'offset', target: () => keyAt },
        { id: KeyValue.value, kind: 'offset', target: () => valueAt }
      ])
    )
    keyAt = w.string(key)
    valueAt = w.string(value)
  }
  return w.finish(meta)
}

/** A whole schema IPC message (prefix and metadata, no body) with `entries` in its schema's custom metadata. */
export function schemaMessageWith(message: Uint8Array, entries: MetadataEntries): Uint8Array {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength)
  const prefix = view.getInt32(0, true) === -1 ? 8 : 4 // pre-1.0 writers omit the continuation marker
  const metaLength = view.getInt32(prefix - 4, true)
  if (prefix + metaLength !== message.length) throw new Error('arrow schema metadata: a schema message with a body')
  const meta = schemaMetadataWith(message.subarray(prefix), entries)
  const out = new Uint8Array(8 + meta.length)
  const outView = new DataView(out.buffer)
  outView.setInt32(0, -1, true)
  outView.setInt32(4, meta.length, true)
  out.set(meta, 8)
  return out
}
