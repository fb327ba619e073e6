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
/**
 * The fixed parts compared 4 bytes at a time (a third of the line's bytes, and what most of the check's time
 * went to byte by byte): part s is words WORDS[WORD_START[s]..WORD_START[s + 1]) (little-endian 32-bit
 * reads of its bytes), then its last `length % 4` bytes TAIL[TAIL_START[s]..TAIL_START[s + 1]).
 */
const PART_LEN = Int32Array.from(PARTS.map((part) => part.length))
const WORD_START = new Int32Array(PARTS.length + 1)
const TAIL_START = new Int32Array(PARTS.length + 1)
const WORDS: number[] = []
const TAILS: number[] = []
PARTS.forEach((part, s) => {
  const bytes = Buffer.from(part, 'latin1')
  const whole = bytes.length & ~3
  for (let w = 0; w < whole; w += 4) WORDS.push(bytes.readUInt32LE(w))
  for (let t = whole; t < bytes.length; t++) TAILS.push(bytes[t]!)
  WORD_START[s + 1] = WORDS.length
  TAIL_START[s + 1] = TAILS.length
})
const WORD = Uint32Array.from(WORDS)
const TAIL = Uint8Array.from(TAILS)
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
  /** a view of the last bytes scanned, for the word reads (one per block of lines) */
  private viewOf: Uint8Array | null = null
  private view: DataView = new DataView(new ArrayBuffer(0))

  /** Whether the line at `b[i..]` has exactly the shape; when true the fields describe it. */
  scan(b: Uint8Array, i: number): boolean {
    if (b !== this.viewOf) {
      this.viewOf = b
      this.view = new DataView(b.buffer, b.byteOffset, b.byteLength)
    }
    const dv = this.view
    const size = b.length
    let p = i
    for (let s = 0; s < PART_LEN.length; s++) {
      // a part running past the bytes cannot match (as the byte compare met `undefined` there)
      if (p + PART_LEN[s]! > size) return false
      for (let w = WORD_START[s]!, stop = WORD_START[s + 1]!; w < stop; w++, p += 4) {
        if (dv.getUint32(p, true) !== WORD[w]) return false
      }
      for (let t = TAIL_START[s]!, stop = TAIL_START[s + 1]!; t < stop; t++, p++) if (b[p] !== TAIL[t]) return false
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
