/**
 * @module
 * A JSON array from JSONEachRow bytes: `[`, the rows joined by `,`, `]`. JSONEachRow escapes control
 * characters inside strings, so a raw newline byte only ever ends a row; turning each row-ending newline
 * into a separator is therefore exact, at any chunk boundary (chDB chunks end at a row boundary; a
 * server's HTTP chunks may not, and need not).
 */

const NL = 0x0a
const OPEN = Buffer.from('[\n')
const SEP = Buffer.from(',\n')
const CLOSE_EMPTY = Buffer.from(']\n')
const CLOSE = Buffer.from('\n]\n')
const EMPTY = Buffer.from('[]\n')

/**
 * Re-frames JSONEachRow (NDJSON) chunks into one JSON array. The newline after a row is held back until
 * the next row starts, so the last row gets no trailing comma. The opening `[` goes out with the first
 * source chunk, not before: a query that fails at once fails before any byte.
 */
export async function* jsonArrayFromRows(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let opened = false
  /** some row byte has been written */
  let started = false
  /** a row ended (newline seen) and its separator is not written yet */
  let pending = false
  for await (const chunk of chunks) {
    const parts: Uint8Array[] = opened ? [] : [OPEN]
    opened = true
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(NL, start)
      const end = nl === -1 ? chunk.length : nl
      if (end > start) {
        if (pending) parts.push(SEP)
        pending = false
        started = true
        parts.push(chunk.subarray(start, end))
      }
      if (nl !== -1 && started) pending = true
      start = end + 1
    }
    if (parts.length > 0) yield Buffer.concat(parts)
  }
  if (!opened) yield EMPTY
  else yield started ? CLOSE : CLOSE_EMPTY
}
