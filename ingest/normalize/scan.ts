/**
 * @module
 * A field scanner for hot-path parsing of flat JSON messages whose shape and key order the venue fixes
 * (Binance aggTrade: e, E, a, s, p, q, f, l, T, m). It reads fields in order from a cursor, without
 * building the object tree JSON.parse would allocate. A field that is missing, out of order or not
 * plainly written gives NaN / null; callers then fall back to JSON.parse, so an unusual message costs
 * time, never correctness. One scanner per normalizer, reused for every message.
 */

/** Integers of up to 15 digits are safe integers. */
const MAX_INT_DIGITS = 15
const COMMA = 44
const CLOSE_BRACE = 125

export class FieldScanner {
  private text = ''
  private pos = 0

  /** Starts scanning `text` at `from`. */
  reset(text: string, from: number): void {
    this.text = text
    this.pos = from
  }

  /** The unsigned integer after `key` (e.g. `"a":`), ending at `,` or `}`; NaN otherwise. */
  int(key: string): number {
    const text = this.text
    const at = text.indexOf(key, this.pos)
    if (at < 0) return Number.NaN
    let i = at + key.length
    const start = i
    let n = 0
    for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) n = n * 10 + (c - 48)
    const end = text.charCodeAt(i)
    if (i === start || i - start > MAX_INT_DIGITS || (end !== COMMA && end !== CLOSE_BRACE)) return Number.NaN
    this.pos = i
    return n
  }

  /** The string after `key` (e.g. `"s":"`, opening quote included); null if missing or escaped. */
  str(key: string): string | null {
    const text = this.text
    const at = text.indexOf(key, this.pos)
    if (at < 0) return null
    const start = at + key.length
    const end = text.indexOf('"', start)
    if (end < 0 || text.charCodeAt(end - 1) === 92) return null // a backslash: let JSON.parse unescape it
    this.pos = end + 1
    return text.slice(start, end)
  }

  /** The boolean after `key` (e.g. `"m":`); null if missing or not a literal. */
  bool(key: string): boolean | null {
    const text = this.text
    const at = text.indexOf(key, this.pos)
    if (at < 0) return null
    const i = at + key.length
    if (text.startsWith('true', i)) {
      this.pos = i + 4
      return true
    }
    if (text.startsWith('false', i)) {
      this.pos = i + 5
      return false
    }
    return null
  }
}
