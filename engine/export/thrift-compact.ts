/**
 * @module
 * A generic reader and writer of the Thrift compact protocol, enough to rewrite a Parquet footer
 * (`FileMetaData`) without a generated schema: a struct is decoded into its fields (id, wire type, value),
 * fields we do not know survive a round trip byte for byte, and the caller edits the few it needs by id.
 * Spec: https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
 *
 * Values: i8/i16/i32 and double are numbers, i64 is a bigint, binary/string is a copy (never a view into
 * the input, so a decoded footer does not keep its whole file alive), bools are booleans.
 */

/** Wire types of the compact protocol (low nibble of a field or list header). */
export const CT = {
  STOP: 0,
  TRUE: 1,
  FALSE: 2,
  I8: 3,
  I16: 4,
  I32: 5,
  I64: 6,
  DOUBLE: 7,
  BINARY: 8,
  LIST: 9,
  SET: 10,
  MAP: 11,
  STRUCT: 12
} as const

export type ThriftValue = boolean | number | bigint | Uint8Array | ThriftStruct | ThriftList | ThriftMap | ThriftRaw

export interface ThriftField {
  readonly id: number
  /** wire type; a bool field is `CT.TRUE` whatever its value */
  readonly type: number
  value: ThriftValue
}

export interface ThriftStruct {
  readonly kind: 'struct'
  fields: ThriftField[]
}

export interface ThriftList {
  readonly kind: 'list'
  /** `CT.LIST` or `CT.SET` (same encoding) */
  readonly wire: number
  readonly elemType: number
  items: ThriftValue[]
}

export interface ThriftMap {
  readonly kind: 'map'
  readonly keyType: number
  readonly valueType: number
  readonly entries: [ThriftValue, ThriftValue][]
}

/** Bytes already encoded as one value of the element or field type (e.g. a struct written earlier). */
export interface ThriftRaw {
  readonly kind: 'raw'
  readonly bytes: Uint8Array
}

/** Decodes one struct starting at `at`; returns it and the offset just past it. */
export function readStruct(bytes: Uint8Array, at = 0): { struct: ThriftStruct; end: number } {
  const r = new Reader(bytes, at)
  const struct = r.struct()
  return { struct, end: r.pos }
}

/** Encodes a struct. */
export function writeStruct(struct: ThriftStruct): Uint8Array {
  const w = new Writer()
  w.struct(struct)
  return w.bytes()
}

/** The field `id` of `s`, or undefined. */
export function getField(s: ThriftStruct, id: number): ThriftField | undefined {
  return s.fields.find((f) => f.id === id)
}

/** Sets (or adds, keeping fields in id order) field `id`. */
export function setField(s: ThriftStruct, id: number, type: number, value: ThriftValue): void {
  const f = getField(s, id)
  if (f) {
    f.value = value
    return
  }
  s.fields.push({ id, type, value })
  s.fields.sort((a, b) => a.id - b.id)
}

export function removeField(s: ThriftStruct, id: number): void {
  s.fields = s.fields.filter((f) => f.id !== id)
}

class Reader {
  constructor(
    private readonly b: Uint8Array,
    public pos: number
  ) {}

  private byte(): number {
    if (this.pos >= this.b.length) throw new Error('thrift: truncated input')
    return this.b[this.pos++]!
  }

  private varint(): bigint {
    let result = 0n
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const byte = this.byte()
      result |= BigInt(byte & 0x7f) << shift
      if ((byte & 0x80) === 0) return result
    }
    throw new Error('thrift: varint too long')
  }

  private zigzag(): bigint {
    const u = this.varint()
    return (u >> 1n) ^ -(u & 1n)
  }

  struct(): ThriftStruct {
    const fields: ThriftField[] = []
    let last = 0
    for (;;) {
      const head = this.byte()
      const type = head & 0x0f
      if (type === CT.STOP) return { kind: 'struct', fields }
      const delta = head >> 4
      const id = delta === 0 ? Number(this.zigzag()) : last + delta
      last = id
      if (type === CT.TRUE || type === CT.FALSE) fields.push({ id, type: CT.TRUE, value: type === CT.TRUE })
      else fields.push({ id, type, value: this.value(type) })
    }
  }

  private value(type: number): ThriftValue {
    switch (type) {
      case CT.TRUE:
      case CT.FALSE:
        return this.byte() === CT.TRUE // a bool inside a list or map is one byte
      case CT.I8:
        return (this.byte() << 24) >> 24
      case CT.I16:
      case CT.I32:
        return Number(this.zigzag())
      case CT.I64:
        return this.zigzag()
      case CT.DOUBLE: {
        const end = this.pos + 8
        if (end > this.b.length) throw new Error('thrift: truncated input')
        const v = new DataView(this.b.buffer, this.b.byteOffset + this.pos, 8).getFloat64(0, true)
        this.pos = end
        return v
      }
      case CT.BINARY: {
        const len = Number(this.varint())
        const end = this.pos + len
        if (end > this.b.length) throw new Error('thrift: truncated input')
        const v = this.b.slice(this.pos, end)
        this.pos = end
        return v
      }
      case CT.LIST:
      case CT.SET: {
        const head = this.byte()
        const size = head >> 4 === 15 ? Number(this.varint()) : head >> 4
        const elemType = head & 0x0f
        const items: ThriftValue[] = []
        for (let i = 0; i < size; i++) items.push(this.value(elemType))
        return { kind: 'list', wire: type, elemType, items }
      }
      case CT.MAP: {
        const size = Number(this.varint())
        const types = size > 0 ? this.byte() : 0
        const keyType = types >> 4
        const valueType = types & 0x0f
        const entries: [ThriftValue, ThriftValue][] = []
        for (let i = 0; i < size; i++) entries.push([this.value(keyType), this.value(valueType)])
        return { kind: 'map', keyType, valueType, entries }
      }
      case CT.STRUCT:
        return this.struct()
      default:
        throw new Error(`thrift: unknown wire type ${type}`)
    }
  }
}

class Writer {
  private buf = new Uint8Array(4096)
  private len = 0

  bytes(): Uint8Array {
    return this.buf.slice(0, this.len)
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n))
    next.set(this.buf.subarray(0, this.len))
    this.buf = next
  }

  private byte(v: number): void {
    this.room(1)
    this.buf[this.len++] = v & 0xff
  }

  private raw(b: Uint8Array): void {
    this.room(b.length)
    this.buf.set(b, this.len)
    this.len += b.length
  }

  private varint(v: bigint): void {
    let u = BigInt.asUintN(64, v)
    while (u >= 0x80n) {
      this.byte(Number(u & 0x7fn) | 0x80)
      u >>= 7n
    }
    this.byte(Number(u))
  }

  private zigzag(v: bigint): void {
    this.varint((v << 1n) ^ (v >> 63n))
  }

  struct(s: ThriftStruct): void {
    let last = 0
    for (const f of s.fields) {
      const isBool = f.type === CT.TRUE || f.type === CT.FALSE
      const type = isBool ? (f.value ? CT.TRUE : CT.FALSE) : f.type
      const delta = f.id - last
      if (delta > 0 && delta <= 15) this.byte((delta << 4) | type)
      else {
        this.byte(type)
        this.zigzag(BigInt(f.id))
      }
      last = f.id
      if (!isBool) this.value(type, f.value)
    }
    this.byte(CT.STOP)
  }

  private value(type: number, v: ThriftValue): void {
    if (typeof v === 'object' && 'kind' in v && v.kind === 'raw') return this.raw(v.bytes)
    switch (type) {
      case CT.TRUE:
      case CT.FALSE:
        return this.byte(v ? CT.TRUE : CT.FALSE)
      case CT.I8:
        return this.byte(v as number)
      case CT.I16:
      case CT.I32:
        return this.zigzag(BigInt(v as number))
      case CT.I64:
        return this.zigzag(v as bigint)
      case CT.DOUBLE: {
        this.room(8)
        new DataView(this.buf.buffer, this.len, 8).setFloat64(0, v as number, true)
        this.len += 8
        return
      }
      case CT.BINARY: {
        const b = v as Uint8Array
        this.varint(BigInt(b.length))
        return this.raw(b)
      }
      case CT.LIST:
      case CT.SET: {
        const l = v as ThriftList
        const n = l.items.length
        if (n < 15) this.byte((n << 4) | l.elemType)
        else {
          this.byte(0xf0 | l.elemType)
          this.varint(BigInt(n))
        }
        for (const item of l.items) this.value(l.elemType, item)
        return
      }
      case CT.MAP: {
        const m = v as ThriftMap
        this.varint(BigInt(m.entries.length))
        if (m.entries.length === 0) return
        this.byte((m.keyType << 4) | m.valueType)
        for (const [k, val] of m.entries) {
          this.value(m.keyType, k)
          this.value(m.valueType, val)
        }
        return
      }
      case CT.STRUCT:
        return this.struct(v as ThriftStruct)
      default:
        throw new Error(`thrift: unknown wire type ${type}`)
    }
  }
}
