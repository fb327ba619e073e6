/**
 * @module
 * The one growable byte buffer of the service, for payloads written field by field (TSV rows) so a batch is
 * never built as JS strings: a line assembled with a template literal is a tree of cons strings flattened
 * again by Buffer.write, ~3 KB of garbage per chain event, and that garbage drove the collector in the chain
 * decode benchmark. Short ASCII strings go in byte by byte; long ones, and any string holding another
 * character, are written by Buffer.write (UTF-8, lone surrogates as U+FFFD), so the bytes are always those
 * of `Buffer.from(text, 'utf8')`. A field already written to one buffer can be copied to another, as it is
 * or with TabSeparated escapes (the escapes of engine/runtime/tsv-row.ts, byte for byte).
 *
 * Invariant: `buf[0..length)` is the payload so far. A byte-level writer may write into `buf` directly
 * after `ensure(n)` and then advance `length`. The payload leaves as a view (`bytes()`: the buffer is then
 * shared, so a growth does not recycle it) or as an exact copy that owns its ArrayBuffer (`take()`:
 * transferable to another thread; the buffer is emptied). Memory comes from a `BufferSource`: plain
 * allocations, or a pool that recycles buffers handed back (engine/whales/sink-pool.ts).
 *
 * Users: the chain batch encoder (engine/whales/chain-batch-tsv.ts, through ByteSink on the pool) and the
 * replay's trade rows (ingest/workers/replay-chunks.ts, written by the aggTrade byte path).
 */
import { escapeTsv } from './tsv-row.js'

/** Where a buffer's memory comes from and goes back to when it is outgrown. */
export interface BufferSource {
  /** a buffer of at least `bytes` bytes owning its ArrayBuffer (never a Node pool slab); content arbitrary */
  alloc(bytes: number): Buffer
  /** an outgrown buffer nobody else holds */
  release(buf: Buffer): void
}

/** Plain allocations outside Node's pool; outgrown buffers are left to the collector. */
export const PLAIN_BUFFERS: BufferSource = { alloc: (bytes) => Buffer.allocUnsafeSlow(bytes), release: () => {} }

/**
 * string length (UTF-16 units) from which `raw` hands the string to Buffer#write: the native call costs
 * ~40 ns whatever the length, the byte loop ~1.1-1.4 ns per unit (Node 20, measured on 4-66 unit strings)
 */
const NATIVE_AFTER = 40

export class ByteBuffer {
  /** the memory; `buf[0..length)` is the payload */
  buf: Buffer
  /** payload bytes written */
  length = 0
  /** `bytes()` was called: the buffer is shared with the caller, so a growth must not recycle it */
  private handed = false

  constructor(
    /** first capacity guess, bytes (grows by doubling) */
    bytes: number,
    private readonly source: BufferSource = PLAIN_BUFFERS
  ) {
    this.buf = source.alloc(bytes)
  }

  /** room for `n` more bytes */
  ensure(n: number): void {
    const need = this.length + n
    if (need <= this.buf.length) return
    const next = this.source.alloc(Math.max(need, this.buf.length * 2))
    this.buf.copy(next, 0, 0, this.length)
    // nobody else holds the outgrown buffer unless bytes() handed out a view of it
    if (!this.handed) this.source.release(this.buf)
    this.buf = next
  }

  /** one byte (an ASCII separator: tab, newline, quote, ...) */
  byte(c: number): void {
    this.ensure(1)
    this.buf[this.length++] = c
  }

  /** bytes already encoded (a field or run of fields the caller built once and writes many times) */
  copy(b: Uint8Array): void {
    this.ensure(b.length)
    this.buf.set(b, this.length)
    this.length += b.length
  }

  /** bytes [start, end) of `src` (another buffer) as they are: a field already written there */
  copyFrom(src: ByteBuffer, start: number, end: number): void {
    this.ensure(end - start)
    const from = src.buf
    const to = this.buf
    let at = this.length
    // a loop: ~0.6 ns per byte for a field's few dozen bytes, where subarray + set costs ~75 ns a call
    for (let i = start; i < end; i++) to[at++] = from[i]!
    this.length = at
  }

  /**
   * bytes [start, end) of `src`, a field written there with `raw`, with the TabSeparated escapes `escaped`
   * adds: the same bytes as `escaped` of the field's text, since backslash, tab, newline and carriage return
   * are single bytes in UTF-8 that never occur inside another character's encoding
   */
  escapedFrom(src: ByteBuffer, start: number, end: number): void {
    this.ensure((end - start) * 2)
    const from = src.buf
    const to = this.buf
    let at = this.length
    for (let i = start; i < end; i++) {
      const c = from[i]!
      if (c === 92 || c === 9 || c === 10 || c === 13) {
        to[at++] = 92
        to[at++] = c === 92 ? 92 : c === 9 ? 116 : c === 10 ? 110 : 114
      } else to[at++] = c
    }
    this.length = at
  }

  /** `s` as UTF-8, unescaped */
  raw(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; Buffer.write truncates silently when short of room
    this.ensure(s.length * 3)
    if (s.length >= NATIVE_AFTER) {
      // the same bytes as the loop below (which falls back to this call at the first non-ASCII unit)
      this.length += this.buf.write(s, this.length, 'utf8')
      return
    }
    const buf = this.buf
    const start = this.length
    let at = start
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c >= 128) {
        this.length = start + buf.write(s, start, 'utf8')
        return
      }
      buf[at++] = c
    }
    this.length = at
  }

  /**
   * `s` with TabSeparated escapes (engine/runtime/tsv-row.ts escapeTsv: backslash, tab, newline, carriage return),
   * as UTF-8
   */
  escaped(s: string): void {
    this.ensure(s.length * 6)
    const buf = this.buf
    const start = this.length
    let at = start
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c >= 128) {
        this.length = start + buf.write(escapeTsv(s), start, 'utf8')
        return
      }
      if (c === 92 || c === 9 || c === 10 || c === 13) {
        buf[at++] = 92
        buf[at++] = c === 92 ? 92 : c === 9 ? 116 : c === 10 ? 110 : 114
      } else buf[at++] = c
    }
    this.length = at
  }

  /** `String(n)`; safe non-negative integers digit by digit, without a string */
  num(n: number): void {
    if (!(n >= 0 && Number.isSafeInteger(n))) {
      this.raw(String(n))
      return
    }
    this.ensure(16)
    if (n < 10) {
      this.buf[this.length++] = 48 + n
      return
    }
    let digits = 1
    for (let p = 10; p <= n; p *= 10) digits++
    const buf = this.buf
    let at = this.length + digits
    this.length = at
    while (n >= 10) {
      const q = Math.floor(n / 10)
      buf[--at] = 48 + (n - q * 10)
      n = q
    }
    buf[--at] = 48 + n
  }

  /**
   * the bytes written so far (a view of the buffer, which owns its ArrayBuffer: never Node's pool); from a
   * pool, hand them back (engine/whales/sink-pool.ts `releaseSinkBytes`) once they are stored, not before
   */
  bytes(): Buffer {
    this.handed = true
    return this.buf.subarray(0, this.length)
  }

  /** The payload as a fresh Uint8Array over its own ArrayBuffer; the buffer is empty afterwards. */
  take(): Uint8Array {
    const out = new Uint8Array(this.length)
    out.set(this.buf.subarray(0, this.length))
    this.length = 0
    return out
  }
}
