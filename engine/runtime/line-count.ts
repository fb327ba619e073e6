/**
 * @module
 * Lines of a byte stream, counted chunk by chunk: the newlines (byte 10), plus a last line without one.
 */

/** The newline bytes (10) in `b`. */
export function newlines(b: Uint8Array): number {
  let n = 0
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++
  return n
}

/** Lines of the chunks added so far: an empty stream has none, an unterminated last line counts. */
export class LineCount {
  private n = 0
  /** the last byte seen; a newline while nothing was seen, so an empty stream has no last line */
  private last = 10

  add(chunk: Uint8Array): void {
    if (chunk.length === 0) return
    this.n += newlines(chunk)
    this.last = chunk[chunk.length - 1]!
  }

  get lines(): number {
    return this.n + (this.last === 10 ? 0 : 1)
  }
}
