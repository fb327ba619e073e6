/**
 * @module
 * Recognizes, in bytes, the one line shape the replay's aggTrade byte path takes (aggtrade-fast.ts):
 *
 *   {"t":<recv>,"v":"binance","c":"ws","m":{"stream":"<name>","data":{"e":"aggTrade","E":<n>,"a":<id>,
 *    "s":"<SYMBOL>","p":"<price>","q":"<qty>","f":<n>,"l":<n>,"T":<ts>,"m":<true|false>}}}\n
 *
 * exactly: these keys in this order and spelling, no whitespace, integers of 1-15 digits (`a` and `T`
 * without a leading zero), a stream name without quotes, escapes or control bytes, a symbol of [A-Z0-9],
 * a price and size that print as their own text (record/decimal-text.ts), and the newline right after the
 * closing braces. The line is read in one pass over a table of its fixed parts (no string, no object): what
 * it returns are offsets into the bytes and the integers read on the way. Anything else: false.
 */
import { DecimalText } from '../../record/decimal-text.js'

/** The fixed parts of the line, in order; after part s comes field s (see `scan`). */
const PARTS = [
  '{"t":',
  ',"v":"binance","c":"ws","m":{"stream":"',
  '","data":{"e":"aggTrade","E":',
  ',"a":',
  ',"s":"',
  '","p":"',
  '","q":"',
  '","f":',
  ',"l":',
  ',"T":',
  ',"m":'
]
const FIXED = Uint8Array.from(PARTS.join(''), (c) => c.charCodeAt(0))
/** end (exclusive) of each part in FIXED */
const PART_END = Int32Array.from(PARTS.map((_, s) => PARTS.slice(0, s + 1).join('').length))
const TRUE_END = Uint8Array.from('true}}}\n', (c) => c.charCodeAt(0))
const FALSE_END = Uint8Array.from('false}}}\n', (c) => c.charCodeAt(0))

const QUOTE = 34
const BACKSLASH = 92
const ZERO = 48
const NINE = 57
/** integers the normalizer's scanner reads (it refuses more digits); all safe integers */
const MAX_DIGITS = 15
/** longest stream name or symbol taken, bytes */
const MAX_NAME = 64

/** One scanned line; reused for every line (the fields are those of the last line `scan` accepted). */
export class AggTradeLine {
  /** receive time `t`, epoch ms */
  t = 0
  /** aggregate id `a` */
  id = 0
  /** trade time `T`, epoch ms */
  ts = 0
  /** `m`: the buyer was the maker, so the taker sold */
  sell = false
  idStart = 0
  idEnd = 0
  symStart = 0
  symEnd = 0
  /** the price's text to write (fraction's trailing zeros dropped): [priceStart, priceEnd) */
  priceStart = 0
  priceEnd = 0
  qtyStart = 0
  qtyEnd = 0
  tsStart = 0
  tsEnd = 0
  /** index of the line's newline */
  newline = 0
  private readonly dec = new DecimalText()

  /** Whether the line at `b[i..]` has exactly the shape; when true the fields describe it. */
  scan(b: Uint8Array, i: number): boolean {
    let p = i
    let k = 0
    for (let s = 0; s < PART_END.length; s++) {
      for (const stop = PART_END[s]!; k < stop; k++, p++) if (b[p] !== FIXED[k]) return false
      const start = p
      switch (s) {
        case 2: // E
        case 7: // f
        case 8: // l: digits, not read
          for (let c = b[p]; c !== undefined && c >= ZERO && c <= NINE; c = b[++p]);
          if (p === start || p - start > MAX_DIGITS) return false
          break
        case 0: // t
        case 3: // a
        case 9: {
          // T
          let n = 0
          for (let c = b[p]; c !== undefined && c >= ZERO && c <= NINE; c = b[++p]) n = n * 10 + (c - ZERO)
          if (p === start || p - start > MAX_DIGITS) return false
          if (s === 0) this.t = n
          else if (s === 3 || s === 9) {
            if (b[start] === ZERO && p - start > 1) return false // String(n) would drop the zero
            if (s === 3) {
              this.id = n
              this.idStart = start
              this.idEnd = p
            } else {
              this.ts = n
              this.tsStart = start
              this.tsEnd = p
            }
          }
          break
        }
        case 1: // stream name: anything the normalizer skips over unread
          for (let c = b[p]; c !== QUOTE; c = b[++p]) {
            if (c === undefined || c === BACKSLASH || c < 32 || p - start > MAX_NAME) return false
          }
          break
        case 4: // symbol
          for (let c = b[p]; c !== QUOTE; c = b[++p]) {
            if (c === undefined || !((c >= 65 && c <= 90) || (c >= ZERO && c <= NINE)) || p - start > MAX_NAME) {
              return false
            }
          }
          if (p === start) return false
          this.symStart = start
          this.symEnd = p
          break
        case 5: // price
        case 6: {
          // size
          const dec = this.dec
          if (!dec.read(b, p)) return false
          if (s === 5) {
            this.priceStart = start
            this.priceEnd = dec.end
          } else {
            this.qtyStart = start
            this.qtyEnd = dec.end
          }
          p = dec.quote
          break
        }
        default: {
          // m, then the closing braces and the newline
          const tail = b[p] === 116 ? TRUE_END : FALSE_END
          for (let j = 0; j < tail.length; j++, p++) if (b[p] !== tail[j]) return false
          this.sell = tail === TRUE_END
          this.newline = p - 1
        }
      }
    }
    return true
  }
}
