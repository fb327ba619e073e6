/**
 * @module
 * A growing byte buffer that TSV fields are written into one by one, so a batch's TSV is never built as JS
 * strings: a line assembled with a template literal is a tree of ~45 cons strings flattened again by
 * Buffer.write, ~3 KB of garbage per chain event, and that garbage drove the collector in the chain decode
 * benchmark. Short ASCII strings go in byte by byte; long ones, and any string holding another character, are
 * written by Buffer.write (UTF-8, lone surrogates as U+FFFD), so the bytes are always those of
 * `Buffer.from(text, 'utf8')`. A field already written to one sink can be copied to another, as it is or with
 * TabSeparated escapes. Used by the chain batch encoder (chain-batch-tsv.ts). Buffers come from sink-pool.ts:
 * a caller that hands the bytes back once they are stored (`releaseSinkBytes`) lets the next sink reuse them.
 */
import { escapeTsv } from '../records/tsv.js'
import { allocSinkBuffer, releaseSinkBytes } from './sink-pool.js'

/**
 * string length (UTF-16 units) from which `raw` hands the string to Buffer#write: the native call costs
 * ~40 ns whatever the length, the byte loop ~1.1-1.4 ns per unit (Node 20, measured on 4-66 unit strings)
 */
const NATIVE_AFTER = 40

export class ByteSink {
  private buf: Buffer
  private len = 0
  /** `bytes()` was called: the buffer is shared with the caller, so a growth must not recycle it */
  private handed = false
  /** `bytes`: first capacity guess (grows by doubling) */
  constructor(bytes: number) {
    this.buf = allocSinkBuffer(Math.max(bytes, 1024))
  }

  /** room for `n` more bytes */
  private room(n: number): void {
    const need = this.len + n
    if (need <= this.buf.length) return
    const next = allocSinkBuffer(Math.max(need, this.buf.length * 2))
    this.buf.copy(next, 0, 0, this.len)
    // nobody else holds the outgrown buffer unless bytes() handed out a view of it
    if (!this.handed) releaseSinkBytes(this.buf)
    this.buf = next
  }

  /** one byte (an ASCII separator: tab, newline, quote, ...) */
  byte(c: number): void {
    this.room(1)
    this.buf[this.len++] = c
  }

  /** bytes already encoded (a field or run of fields the caller built once and writes many times) */
  copy(b: Uint8Array): void {
    this.room(b.length)
    this.buf.set(b, this.len)
    this.len += b.length
  }

  /** bytes [start, end) of `src` (another sink) as they are: a field already written there */
  copyFrom(src: ByteSink, start: number, end: number): void {
    this.room(end - start)
    const from = src.buf
    const to = this.buf
    let at = this.len
    // a loop: ~0.6 ns per byte for a field's few dozen bytes, where subarray + set costs ~75 ns a call
    for (let i = start; i < end; i++) to[at++] = from[i]!
    this.len = at
  }

  /**
   * bytes [start, end) of `src`, a field written there with `raw`, with the TabSeparated escapes `escaped`
   * adds: the same bytes as `escaped` of the field's text, since backslash, tab, newline and carriage return
   * are single bytes in UTF-8 that never occur inside another character's encoding
   */
  escapedFrom(src: ByteSink, start: number, end: number): void {
    this.room((end - start) * 2)
    const from = src.buf
    const to = this.buf
    let at = this.len
    for (let i = start; i < end; i++) {
      const c = from[i]!
      if (c === 92 || c === 9 || c === 10 || c === 13) {
        to[at++] = 92
        to[at++] = c === 92 ? 92 : c === 9 ? 116 : c === 10 ? 110 : 114
      } else to[at++] = c
    }
    this.len = at
  }

  /** `s` as UTF-8, unescaped */
  raw(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; Buffer.write truncates silently when short of room
    this.room(s.length * 3)
    if (s.length >= NATIVE_AFTER) {
      // the same bytes as the loop below (which falls back to this call at the first non-ASCII unit)
      this.len += this.buf.write(s, this.len, 'utf8')
      return
    }
    const buf = this.buf
    const start = this.len
    let at = start
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c >= 128) {
        this.len = start + buf.write(s, start, 'utf8')
        return
      }
      buf[at++] = c
    }
    this.len = at
  }

  /**
   * `s` with TabSeparated escapes (engine/records/tsv.ts escapeTsv: backslash, tab, newline, carriage return),
   * as UTF-8
   */
  escaped(s: string): void {
    this.room(s.length * 6)
    const buf = this.buf
    const start = this.len
    let at = start
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i)
      if (c >= 128) {
        this.len = start + buf.write(escapeTsv(s), start, 'utf8')
        return
      }
      if (c === 92 || c === 9 || c === 10 || c === 13) {
        buf[at++] = 92
        buf[at++] = c === 92 ? 92 : c === 9 ? 116 : c === 10 ? 110 : 114
      } else buf[at++] = c
    }
    this.len = at
  }

  /** `String(n)`; safe non-negative integers digit by digit, without a string */
  num(n: number): void {
    if (!(n >= 0 && Number.isSafeInteger(n))) {
      this.raw(String(n))
      return
    }
    this.room(16)
    if (n < 10) {
      this.buf[this.len++] = 48 + n
      return
    }
    let digits = 1
    for (let p = 10; p <= n; p *= 10) digits++
    const buf = this.buf
    let at = this.len + digits
    this.len = at
    while (n >= 10) {
      const q = Math.floor(n / 10)
      buf[--at] = 48 + (n - q * 10)
      n = q
    }
    buf[--at] = 48 + n
  }

  get length(): number {
    return this.len
  }

  /**
   * the bytes written so far (a view of the sink's buffer, which owns its ArrayBuffer: never Node's pool);
   * hand them to `releaseSinkBytes` once they are stored, not before
   */
  bytes(): Buffer {
    this.handed = true
    return this.buf.subarray(0, this.len)
  }
}
