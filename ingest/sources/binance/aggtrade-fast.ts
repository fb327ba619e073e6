/**
 * @module
 * The replay's byte-level path for the one line shape that makes up almost all of a Binance recording:
 *
 *   {"t":<recv>,"v":"binance","c":"ws","m":{"stream":"<name>","data":{"e":"aggTrade","E":<n>,"a":<id>,
 *    "s":"<SYMBOL>","p":"<price>","q":"<qty>","f":<n>,"l":<n>,"T":<ts>,"m":<true|false>}}}
 *
 * (one line, exactly this key order and spelling, as the recorder writes the combined stream). It reads
 * the line straight from the gunzipped bytes and writes the trade's TSV row straight into the chunk's
 * bytes: no string, no record object, no JSON.parse. Any line that is not exactly this shape (other keys
 * or order, escapes, nulls, a missing or empty field, `a` or `T` with a leading zero or over 15 digits,
 * a symbol outside [A-Z0-9], a price or size whose TSV text would not be the venue's text, see
 * record/decimal-text.ts), and any trade the normalizer would treat specially (a market it does not
 * follow, a multiplied "1000PEPE" market, a market that had trades without an id) is refused (-1), and the
 * caller sends it through the general path (ReplayLines: the normalizer itself), in order.
 *
 * What it accepts it handles exactly as the normalizer's own text path does (normalizeText then trade):
 * the same market state (trade-state.ts), the same duplicate and gap rules and counters, the same row
 * bytes the generated TSV encoder writes (ts, exchange, market, symbol, base, quote, side, price, qty,
 * trade_id). test/integration/replay-fast-path.test.ts compares both paths byte for byte.
 */
import { escapeTsv } from '../../../engine/records/tsv.js'
import type { BinanceNormalizer } from '../../normalize/binance.js'
import { DecimalText } from '../../record/decimal-text.js'
import type { RowBuffer } from '../../record/row-buffer.js'
import type { FeedCounters } from '../feed/feed-counters.js'
import { isTradeMarket, tradeStateOf, type BinanceTradeState, type TradeMarket } from './trade-state.js'
import type { MarketMeta } from '../../normalize/binance-markets.js'

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0))

const HEAD = ascii('{"t":')
const ENVELOPE = ascii(',"v":"binance","c":"ws","m":{"stream":"')
const DATA = ascii('","data":{"e":"aggTrade","E":')
const KEY_A = ascii(',"a":')
const KEY_S = ascii(',"s":"')
const KEY_P = ascii('","p":"')
const KEY_Q = ascii('","q":"')
const KEY_F = ascii('","f":')
const KEY_L = ascii(',"l":')
const KEY_T = ascii(',"T":')
const KEY_M = ascii(',"m":')
const TRUE_END = ascii('true}}}\n')
const FALSE_END = ascii('false}}}\n')
const SELL = ascii('sell\t')
const BUY = ascii('buy\t')

const QUOTE = 34
const BACKSLASH = 92
const ZERO = 48
const NINE = 57
const TAB = 9
const NEWLINE = 10
/** integers the normalizer's scanner reads (it refuses more digits) */
const MAX_INT_DIGITS = 15
/** longest stream name or symbol taken */
const MAX_NAME = 64
/** a row is at most its market prefix plus this many bytes (ts, side, price, qty, id, tabs, newline) */
const ROW_SLACK = 160

/** A market as the byte path caches it: its symbol bytes, the normalizer's market, its TSV columns. */
interface Entry {
  readonly sym: Uint8Array
  readonly key: string
  readonly market: TradeMarket
  readonly meta: MarketMeta
  /** `\tbinance\tperp\t<symbol>\t<base>\t<quote>\t` */
  readonly prefix: Uint8Array
}

/** `lit` at `b[i..]`: the index after it, or -1. */
function lit(b: Uint8Array, i: number, l: Uint8Array): number {
  if (i < 0) return -1
  for (let k = 0; k < l.length; k++) if (b[i + k] !== l[k]) return -1
  return i + l.length
}

/** Digits at `b[i..]` (1 to MAX_INT_DIGITS): the index after them, or -1. */
function digits(b: Uint8Array, i: number): number {
  if (i < 0) return -1
  const start = i
  for (let c = b[i]; c !== undefined && c >= ZERO && c <= NINE; c = b[++i]);
  return i === start || i - start > MAX_INT_DIGITS ? -1 : i
}

/** Like `digits`, also refusing a leading zero before another digit (`String(n)` would drop it). */
function plainInt(b: Uint8Array, i: number): number {
  const end = digits(b, i)
  return end < 0 || (b[i] === ZERO && end - i > 1) ? -1 : end
}

function intAt(b: Uint8Array, from: number, to: number): number {
  let n = 0
  for (let k = from; k < to; k++) n = n * 10 + (b[k]! - ZERO)
  return n
}

function copy(src: Uint8Array, from: number, to: number, dst: Uint8Array, at: number): number {
  for (let k = from; k < to; k++) dst[at++] = src[k]!
  return at
}

export class AggTradeFastPath {
  /** lines taken (rows written plus duplicates skipped) */
  taken = 0
  /** ts of the row the last accepted line wrote; NaN when it was a duplicate (no row) */
  rowTs = Number.NaN
  private readonly state: BinanceTradeState
  private readonly cache = new Map<number, Entry>()
  private readonly dec = new DecimalText()

  private constructor(
    state: BinanceTradeState,
    private readonly counters: FeedCounters
  ) {
    this.state = state
  }

  /** The byte path over `normalizer`'s state, counting into `counters`; null if that state is not readable. */
  static over(normalizer: BinanceNormalizer, counters: FeedCounters): AggTradeFastPath | null {
    const state = tradeStateOf(normalizer)
    return state === null ? null : new AggTradeFastPath(state, counters)
  }

  /**
   * Forgets the cached markets. Called whenever a line takes the general path, which may change what the
   * cache mirrors (exchangeInfo replaces market meta and drops delivery contracts).
   */
  reset(): void {
    if (this.cache.size > 0) this.cache.clear()
  }

  /**
   * Takes the line at `b[i..]` if it is exactly the aggTrade shape and a plain trade: counts it, applies
   * the duplicate and gap rules, and writes its row into `rows` (unless a duplicate). Returns the index of
   * the line's newline, or -1 (nothing read, counted or written: the caller takes the general path).
   */
  take(b: Uint8Array, i: number, rows: RowBuffer): number {
    let p = lit(b, i, HEAD)
    const tStart = p
    p = digits(b, p)
    const tEnd = p
    p = lit(b, p, ENVELOPE)
    if (p < 0) return -1
    const streamStart = p
    for (let c = b[p]; c !== QUOTE; c = b[++p]) {
      if (c === undefined || c === BACKSLASH || c < 32 || p - streamStart > MAX_NAME) return -1
    }
    p = digits(b, lit(b, p, DATA))
    p = lit(b, p, KEY_A)
    const idStart = p
    p = plainInt(b, p)
    const idEnd = p
    p = lit(b, p, KEY_S)
    if (p < 0) return -1
    const symStart = p
    for (let c = b[p]; c !== QUOTE; c = b[++p]) {
      if (c === undefined || !((c >= 65 && c <= 90) || (c >= ZERO && c <= NINE)) || p - symStart > MAX_NAME) return -1
    }
    const symEnd = p
    if (symEnd === symStart) return -1
    const dec = this.dec
    p = lit(b, p, KEY_P)
    if (p < 0 || !dec.read(b, p)) return -1
    const priceStart = p
    const priceEnd = dec.end
    p = lit(b, dec.quote, KEY_Q)
    if (p < 0 || !dec.read(b, p)) return -1
    const qtyStart = p
    const qtyEnd = dec.end
    p = digits(b, lit(b, dec.quote, KEY_F))
    p = digits(b, lit(b, p, KEY_L))
    p = lit(b, p, KEY_T)
    const tsStart = p
    p = plainInt(b, p)
    const tsEnd = p
    p = lit(b, p, KEY_M)
    if (p < 0) return -1
    let sell: boolean
    let nl = lit(b, p, TRUE_END)
    if (nl >= 0)
      sell = true // m: the buyer was the maker, so the taker sold
    else {
      nl = lit(b, p, FALSE_END)
      if (nl < 0) return -1
      sell = false
    }
    nl-- // the newline's index
    const e = this.entry(b, symStart, symEnd)
    if (e === null) return -1
    const m = e.market
    // the shape is right and the trade plain: from here on the line is this path's
    const c = this.counters
    c.messages++
    c.lastMessageTs = intAt(b, tStart, tEnd)
    this.taken++
    const id = intAt(b, idStart, idEnd)
    const last = m.lastAggId
    if (last >= 0) {
      if (id <= last) {
        this.state.duplicates++
        c.duplicates++
        this.rowTs = Number.NaN
        return nl
      }
      if (id > last + 1) {
        this.state.missingIds += id - last - 1
        this.state.onGap(e.key, last + 1, id - 1)
      }
    }
    m.lastAggId = id
    rows.ensure(e.prefix.length + ROW_SLACK)
    const out = rows.bytes
    let o = copy(b, tsStart, tsEnd, out, rows.length)
    o = copy(e.prefix, 0, e.prefix.length, out, o)
    const side = sell ? SELL : BUY
    o = copy(side, 0, side.length, out, o)
    o = copy(b, priceStart, priceEnd, out, o)
    out[o++] = TAB
    o = copy(b, qtyStart, qtyEnd, out, o)
    out[o++] = TAB
    o = copy(b, idStart, idEnd, out, o)
    out[o++] = NEWLINE
    rows.length = o
    this.rowTs = intAt(b, tsStart, tsEnd)
    return nl
  }

  /** The cached market of the symbol at `b[from..to)`; null when the byte path must not take its trades. */
  private entry(b: Uint8Array, from: number, to: number): Entry | null {
    let h = 0x811c9dc5
    for (let k = from; k < to; k++) h = Math.imul(h ^ b[k]!, 16777619)
    let e = this.cache.get(h)
    if (e === undefined || !sameBytes(e.sym, b, from, to) || e.market.meta !== e.meta) {
      const key = Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('latin1')
      const m = this.state.market(key)
      // not followed (delivery) or multiplied prices and sizes: the normalizer's own path
      if (m === null || !isTradeMarket(m) || m.meta.multiplier !== 1) return null
      const meta = m.meta
      const prefix = Buffer.from(
        `\tbinance\tperp\t${escapeTsv(meta.symbol)}\t${escapeTsv(meta.base)}\t${escapeTsv(meta.quote)}\t`,
        'utf8'
      )
      e = { sym: b.slice(from, to), key, market: m, meta, prefix }
      this.cache.set(h, e)
    }
    // a market that had trades without an aggregate id: the parsed path checks each trade against them
    return e.market.unsequencedIds === null ? e : null
  }
}

function sameBytes(sym: Uint8Array, b: Uint8Array, from: number, to: number): boolean {
  if (sym.length !== to - from) return false
  for (let k = 0; k < sym.length; k++) if (sym[k] !== b[from + k]) return false
  return true
}
