/**
 * @module
 * A growable byte buffer that TSV rows are written into directly (the replay's byte-level path), so a
 * chunk's payload is built without a JS string per row and without a separate UTF-8 encoding pass.
 * Invariant: `bytes[0..length)` is the payload so far; `take` hands out an exact copy that owns its
 * ArrayBuffer (transferable to another thread) and empties the buffer.
 */

/** Starting capacity, bytes: about 5,000 trade rows (a replay chunk). */
const INITIAL_BYTES = 1 << 19

export class RowBuffer {
  bytes: Buffer = Buffer.allocUnsafeSlow(INITIAL_BYTES)
  length = 0

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.length + n
    if (need <= this.bytes.length) return
    let size = this.bytes.length * 2
    while (size < need) size *= 2
    const next = Buffer.allocUnsafeSlow(size)
    this.bytes.copy(next, 0, 0, this.length)
    this.bytes = next
  }

  /** Appends a string as UTF-8 (lone surrogates become U+FFFD, as TextEncoder writes them). */
  writeString(s: string): void {
    this.ensure(s.length * 3)
    this.length += this.bytes.write(s, this.length, 'utf8')
  }

  /** The payload as a fresh Uint8Array over its own ArrayBuffer; the buffer is empty afterwards. */
  take(): Uint8Array {
    const out = new Uint8Array(this.length)
    out.set(this.bytes.subarray(0, this.length))
    this.length = 0
    return out
  }
}
