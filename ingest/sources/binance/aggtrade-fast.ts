/**
 * @module
 * The replay's byte-level path for the one line shape that makes up almost all of a Binance recording, a
 * combined-stream aggTrade event exactly as the recorder writes it (aggtrade-line.ts says which lines
 * qualify). It reads the line straight from the gunzipped bytes and writes the trade's TSV row straight
 * into the chunk's bytes: no string, no record object, no JSON.parse. A line of any other shape, and any
 * trade the normalizer treats specially (a market it does not follow, a multiplied "1000PEPE" market, a
 * market that had trades without an id), is refused (-1), and the caller sends it through the general path
 * (ReplayLines: the normalizer itself), in order.
 *
 * What it accepts it handles exactly as the normalizer's own text path does (normalizeText, then trade):
 * the same market state (trade-state.ts), the same duplicate and gap rules and counters, and the row bytes
 * the generated TSV encoder writes for the record (ts, exchange, market, symbol, base, quote, side, price,
 * qty, trade_id). test/integration/replay-fast-path.test.ts compares both paths byte for byte.
 */
import type { ByteBuffer } from '../../../engine/runtime/byte-buffer.js'
import { escapeTsv } from '../../../engine/runtime/tsv-row.js'
import type { MarketMeta } from '../../normalize/binance-markets.js'
import type { BinanceNormalizer } from '../../normalize/binance.js'
import type { FeedCounters } from '../feed/feed-counters.js'
import { AggTradeLine } from './aggtrade-line.js'
import type { BinanceTradeState, TradeMarket } from './trade-state.js'

const SELL = Uint8Array.from('sell\t', (c) => c.charCodeAt(0))
const BUY = Uint8Array.from('buy\t', (c) => c.charCodeAt(0))
const TAB = 9
const NEWLINE = 10
/** a row is at most its market prefix plus this many bytes (ts, side, price, qty, id, tabs, newline) */
const ROW_SLACK = 160

/** A market as the byte path caches it: its symbol bytes, the normalizer's market, its TSV columns. */
interface Entry {
  readonly sym: Uint8Array
  readonly key: string
  readonly market: TradeMarket
  readonly meta: MarketMeta
  /** `\tbinance\tperp\t<symbol>\t<base>\t<quote>\t`, escaped */
  readonly prefix: Uint8Array
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
  private readonly line = new AggTradeLine()
  private readonly cache = new Map<number, Entry>()
  /** the normalizer's marketsVersion the cache was filled under */
  private version: number

  private constructor(
    private readonly state: BinanceTradeState,
    private readonly counters: FeedCounters
  ) {
    this.version = state.marketsVersion
  }

  /** The byte path over `normalizer`'s state, counting into `counters`. */
  static over(normalizer: BinanceNormalizer, counters: FeedCounters): AggTradeFastPath {
    const state: BinanceTradeState = normalizer
    return new AggTradeFastPath(state, counters)
  }

  /**
   * Takes the line at `b[i..]` if it is exactly the aggTrade shape and a plain trade: counts it, applies
   * the duplicate and gap rules, and writes its row into `rows` (unless a duplicate). Returns the index of
   * the line's newline, or -1 (nothing read, counted or written: the caller takes the general path).
   */
  take(b: Uint8Array, i: number, rows: ByteBuffer): number {
    const line = this.line
    if (!line.scan(b, i)) return -1
    const e = this.entry(b, line.symStart, line.symEnd)
    if (e === null) return -1
    // the shape is right and the trade plain: from here on the line is this path's
    const c = this.counters
    c.messages++
    c.lastMessageTs = line.t
    this.taken++
    const m = e.market
    const id = line.id
    const last = m.lastAggId
    if (last >= 0) {
      if (id <= last) {
        this.state.duplicates++
        c.duplicates++
        this.rowTs = Number.NaN
        return line.newline
      }
      if (id > last + 1) {
        this.state.missingIds += id - last - 1
        this.state.onGap(e.key, last + 1, id - 1)
      }
    }
    m.lastAggId = id
    this.write(b, e.prefix, rows)
    this.rowTs = line.ts
    return line.newline
  }

  /** The trade's row: ts, the market's columns, side, price, qty, trade_id (the aggregate id). */
  private write(b: Uint8Array, prefix: Uint8Array, rows: ByteBuffer): void {
    const line = this.line
    rows.ensure(prefix.length + ROW_SLACK)
    const out = rows.buf
    let o = copy(b, line.tsStart, line.tsEnd, out, rows.length)
    o = copy(prefix, 0, prefix.length, out, o)
    const side = line.sell ? SELL : BUY
    o = copy(side, 0, side.length, out, o)
    o = copy(b, line.priceStart, line.priceEnd, out, o)
    out[o++] = TAB
    o = copy(b, line.qtyStart, line.qtyEnd, out, o)
    out[o++] = TAB
    o = copy(b, line.idStart, line.idEnd, out, o)
    out[o++] = NEWLINE
    rows.length = o
  }

  /** The cached market of the symbol at `b[from..to)`; null when the byte path must not take its trades. */
  private entry(b: Uint8Array, from: number, to: number): Entry | null {
    // lines of the general path in between may have dropped markets or replaced metas (exchangeInfo)
    if (this.state.marketsVersion !== this.version) {
      this.cache.clear()
      this.version = this.state.marketsVersion
    }
    let h = 0x811c9dc5
    for (let k = from; k < to; k++) h = Math.imul(h ^ b[k]!, 16777619)
    let e = this.cache.get(h)
    if (e === undefined || !sameBytes(e.sym, b, from, to) || e.market.meta !== e.meta) {
      const key = Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('latin1')
      const m = this.state.tradeMarket(key)
      // not followed (delivery) or multiplied prices and sizes: the normalizer's own path
      if (m === null || m.meta.multiplier !== 1) return null
      const meta = m.meta
      const prefix = Buffer.from(
        `\tbinance\tperp\t${escapeTsv(meta.symbol)}\t${escapeTsv(meta.base)}\t${escapeTsv(meta.quote)}\t`,
        'utf8'
      )
      e = { sym: new Uint8Array(b.subarray(from, to)), key, market: m, meta, prefix }
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
