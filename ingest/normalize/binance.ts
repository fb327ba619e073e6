/**
 * @module
 * Binance USD-M futures → normalized records. Socket messages come from the combined stream
 * (`{"stream","data"}`) or a raw stream (the event itself); REST responses are told apart by their path.
 *
 * - `aggTrade` → trade. `m` = buyer is maker, so `m=true` means the taker SOLD. `a` (aggregate id) rises
 *   by one per aggregate per symbol: a jump is a gap (reported to `onGap`, the transport backfills it from
 *   `/fapi/v1/aggTrades`), an id at or below the last one is a duplicate and skipped. A trade without `a`
 *   (seen in captured traffic) is stored outside the gap check (`unsequenced`) with a trade_id made from
 *   its other fields (`unsequencedId`).
 * - `markPriceUpdate` (per symbol or the `!markPrice@arr` array) → funding, sampled once per
 *   FUNDING_SAMPLE_MS per market and whenever the next funding time moves (a settlement happened).
 *   `r` is already a decimal fraction per interval; the interval comes from fundingInfo (default 8 h).
 * - `forceOrder` → liquidation: side of the liquidation order (SELL closes a long), average fill price
 *   and filled size (the stream sends at most one snapshot per symbol per second).
 * - `/fapi/v1/openInterest` → open_interest: `openInterest` is in contracts = base coin; USD uses the
 *   latest mark price (a reading that arrives before any mark price waits for the first one).
 * - `/futures/data/globalLongShortAccountRatio` → long_short (each 5-minute reading once).
 *   (Both in binance-rest.ts; the message shapes and field readers in binance-fields.ts.)
 * - `/fapi/v1/aggTrades` (gap backfill) → trades, outside the gap check (they are older than the last id).
 * - `/fapi/v1/exchangeInfo`, `/fapi/v1/fundingInfo` → market meta (base coin, multiplier, interval), kept
 *   per market by binance-market-book.ts.
 * "1000PEPE"-style markets are converted to the plain coin: sizes × 1000, prices ÷ 1000.
 * Delivery contracts (`BTCUSDT_250328`, or listed as such by exchangeInfo) ride the all-market streams
 * with a funding rate of "" or "0.00000000" and a next funding time of 0; they are not followed (no
 * funding, not perpetuals): every message of one is `unknown` and makes no market.
 */
import type { NormalizedRecord } from '../../engine/records/types.js'
import {
  absent,
  fieldsId,
  num,
  optional,
  unsequencedId,
  type AggTrade,
  type ForceOrder,
  type MarkPriceUpdate
} from './binance-fields.js'
import { BinanceMarketBook, type Market } from './binance-market-book.js'
import type { MarketMeta } from './binance-markets.js'
import { emitOi, longShort, openInterest } from './binance-rest.js'
import { WS_CHANNEL, type Outcome, type VenueNormalizer } from './normalizer.js'
import { FieldScanner } from './scan.js'
import { RecentIds } from './trade-window.js'

/** One funding record per market per minute: the stream pushes every second, the rate moves slowly. */
export const FUNDING_SAMPLE_MS = 60_000
const EXCHANGE = 'binance'

export { unsequencedId }

export type GapHandler = (symbol: string, fromId: number, toId: number) => void

const SYMBOL_PARAM = /[?&]symbol=([A-Z0-9]+)/
/** Marks the one message shape the fast path reads: a combined-stream aggTrade event. */
const AGG_TRADE_DATA = '"data":{"e":"aggTrade",'
const STREAM_ENVELOPE = '{"stream":"'
const CLOSE_BRACE = 125

export class BinanceNormalizer implements VenueNormalizer {
  readonly venue = EXCHANGE
  private readonly book = new BinanceMarketBook()
  private readonly scanner = new FieldScanner()
  /** trades skipped because their id was not above the last one */
  duplicates = 0
  /** aggregate ids missing between two socket trades (summed over gaps) */
  missingIds = 0
  /** trades stored without an aggregate id, so outside the gap check */
  unsequenced = 0
  /** bumped by each exchangeInfo (markets dropped, metas replaced): see BinanceTradeState.marketsVersion */
  marketsVersion = 0

  /** `onGap` hears of every aggTrade id gap on the socket (ids fromId..toId inclusive are missing). */
  constructor(readonly onGap: GapHandler = () => {}) {}

  /** Known markets (from exchangeInfo or seen in messages). */
  marketMeta(symbol: string): MarketMeta | undefined {
    return this.book.peek(symbol)?.meta
  }

  /**
   * The aggTrade state of a market as the replay's byte path reads and advances it (its lines and the
   * normalizer's share one state, ingest/sources/binance/trade-state.ts): `market`, made on first sight.
   */
  tradeMarket(symbol: string): Market | null {
    return this.book.market(symbol)
  }

  normalize(channel: string, msg: unknown, _recvTs: number, out: NormalizedRecord[]): Outcome {
    if (msg === null || typeof msg !== 'object') return 'malformed'
    if (channel === WS_CHANNEL) return this.socket(msg as Record<string, unknown>, out)
    return this.rest(channel, msg, out)
  }

  private socket(msg: Record<string, unknown>, out: NormalizedRecord[]): Outcome {
    const data = typeof msg['stream'] === 'string' ? msg['data'] : msg
    if (Array.isArray(data)) return this.markPriceArray(data, out)
    if (data === null || typeof data !== 'object') return 'malformed'
    switch ((data as { e?: unknown }).e) {
      case 'aggTrade':
        return this.aggTrade(data as AggTrade, null, true, out)
      case 'markPriceUpdate':
        return this.markPrice(data as MarkPriceUpdate, out)
      case 'forceOrder':
        return this.forceOrder(data as ForceOrder, out)
    }
    if ('result' in msg && 'id' in msg) return 'control' // {"result":null,"id":1}: subscription ack
    if ('error' in msg || 'code' in msg) return 'error'
    return 'unknown'
  }

  /**
   * The hot path: reads a combined-stream aggTrade event straight from its text, without JSON.parse.
   * Only the exact shape Binance sends is taken (flat object, no escapes, closing braces present);
   * anything else returns undefined and the caller parses the text and calls `normalize`.
   */
  normalizeText(channel: string, text: string, _recvTs: number, out: NormalizedRecord[]): Outcome | undefined {
    if (channel !== WS_CHANNEL) return undefined
    const d = text.indexOf(AGG_TRADE_DATA)
    const n = text.length
    if (d < 0 || text.charCodeAt(n - 1) !== CLOSE_BRACE || text.charCodeAt(n - 2) !== CLOSE_BRACE) return undefined
    if (!text.startsWith(STREAM_ENVELOPE)) return undefined
    // fields in Binance's order; `f` and `l` (first/last trade id) are not needed
    const scan = this.scanner
    scan.reset(text, d + AGG_TRADE_DATA.length)
    const id = scan.int('"a":')
    const s = scan.str('"s":"')
    const p = scan.str('"p":"')
    const q = scan.str('"q":"')
    const ts = scan.int('"T":')
    const buyerIsMaker = scan.bool('"m":')
    if (s === null || p === null || q === null || buyerIsMaker === null || Number.isNaN(id) || Number.isNaN(ts)) {
      return undefined
    }
    const price = +p
    const qty = +q
    if (s.includes('\\') || Number.isNaN(price) || Number.isNaN(qty)) return undefined
    // a market that had trades without an id: the parsed path checks each trade against them
    if (this.unsequenced > 0 && this.book.peek(s)?.unsequencedIds) return undefined
    return this.trade(s, id, ts, price, qty, buyerIsMaker, true, out, null)
  }

  private aggTrade(d: AggTrade, symbol: string | null, fromSocket: boolean, out: NormalizedRecord[]): Outcome {
    const s = symbol ?? d.s
    const id = absent(d.a) ? null : d.a
    const ts = d.T
    if (typeof s !== 'string' || typeof ts !== 'number' || typeof d.m !== 'boolean') return 'malformed'
    if (id !== null && typeof id !== 'number') return 'malformed'
    return this.trade(s, id, ts, num(d.p), num(d.q), d.m, fromSocket, out, d)
  }

  /** One trade; `id` null: it came without an aggregate id. `raw` (null on the fast path) names such trades. */
  private trade(
    s: string,
    id: number | null,
    ts: number,
    price: number,
    qty: number,
    buyerIsMaker: boolean,
    fromSocket: boolean,
    out: NormalizedRecord[],
    raw: AggTrade | null
  ): Outcome {
    if (!(price > 0) || !(qty > 0)) return 'malformed' // NaN compares false too
    const m = this.book.market(s)
    if (m === null) return 'unknown'
    // only parsed trades come without an id, so `raw` is there
    if (id === null) return this.unsequencedTrade(m, raw!, ts, price, qty, buyerIsMaker, out)
    if (fromSocket) {
      const last = m.lastAggId
      if (last >= 0) {
        if (id <= last) {
          this.duplicates++
          return 'duplicate'
        }
        if (id > last + 1) {
          this.missingIds += id - last - 1
          this.onGap(s, last + 1, id - 1)
        }
      }
      m.lastAggId = id
    }
    if (m.unsequencedIds !== null && raw !== null && this.seenUnsequenced(m.unsequencedIds, raw, ts, buyerIsMaker)) {
      this.duplicates++ // taken before without its id (e.g. the gap fill of the id it lacked)
      return 'duplicate'
    }
    this.push(m, ts, price, qty, buyerIsMaker, String(id), out)
    return 'ok'
  }

  /** A trade without an aggregate id: stored once (a repeat is a duplicate), outside the gap check. */
  private unsequencedTrade(
    m: Market,
    raw: AggTrade,
    ts: number,
    price: number,
    qty: number,
    buyerIsMaker: boolean,
    out: NormalizedRecord[]
  ): Outcome {
    const tradeId = unsequencedId(raw, ts, buyerIsMaker)
    const seen = (m.unsequencedIds ??= new RecentIds())
    if (seen.has(tradeId)) {
      this.duplicates++
      return 'duplicate'
    }
    seen.add(tradeId, ts)
    this.unsequenced++
    this.push(m, ts, price, qty, buyerIsMaker, tradeId, out)
    return 'ok'
  }

  /** Whether a trade with an id is one of the market's recent trades that came without it. */
  private seenUnsequenced(seen: RecentIds, raw: AggTrade, ts: number, buyerIsMaker: boolean): boolean {
    return seen.has(unsequencedId(raw, ts, buyerIsMaker)) || seen.has(fieldsId(raw, ts, buyerIsMaker))
  }

  private push(
    m: Market,
    ts: number,
    price: number,
    qty: number,
    buyerIsMaker: boolean,
    tradeId: string,
    out: NormalizedRecord[]
  ): void {
    const meta = m.meta
    const k = meta.multiplier
    out.push({
      kind: 'trade',
      ts,
      exchange: EXCHANGE,
      market: 'perp',
      symbol: meta.symbol, // the market's own string: `s` may be a slice that keeps a whole message alive
      base: meta.base,
      quote: meta.quote,
      side: buyerIsMaker ? 'sell' : 'buy',
      price: k === 1 ? price : price / k,
      qty: k === 1 ? qty : qty * k,
      trade_id: tradeId
    })
  }

  /**
   * `!markPrice@arr`: one row per market, delivery contracts included. The good rows count even when others
   * are malformed (the message is then `malformed`); skipped rows (delivery contracts) make the message
   * `unknown` only when no row mapped.
   */
  private markPriceArray(rows: unknown[], out: NormalizedRecord[]): Outcome {
    let mapped = rows.length === 0
    let malformed = false
    for (const row of rows) {
      const o = row !== null && typeof row === 'object' ? this.markPrice(row as MarkPriceUpdate, out) : 'malformed'
      if (o === 'ok') mapped = true
      else if (o !== 'unknown') malformed = true
    }
    return malformed ? 'malformed' : mapped ? 'ok' : 'unknown'
  }

  /**
   * One market's mark price event: `s` and `E` are required. The mark `p` and the funding rate `r` may each
   * be absent (not both: nothing to take, `unknown`); so may the index `i` and the next funding time `T`.
   */
  private markPrice(d: MarkPriceUpdate, out: NormalizedRecord[]): Outcome {
    const ts = d.E
    if (typeof d.s !== 'string' || typeof ts !== 'number') return 'malformed'
    const m = this.book.market(d.s)
    if (m === null) return 'unknown' // a delivery contract: "r" is "" or "0.00000000", "T" 0
    const mark = optional(d.p)
    const index = optional(d.i)
    const next = optional(d.T)
    // "r" is empty for a market without funding; "0.00000000" is a rate
    const rate = absent(d.r) ? null : num(d.r)
    if (mark === undefined || index === undefined || next === undefined) return 'malformed'
    if (rate !== null && !Number.isFinite(rate)) return 'malformed'
    if (mark === null && rate === null) return 'unknown'
    const k = m.meta.multiplier
    if (mark !== null) {
      m.mark = mark
      if (m.pendingOi) emitOi(m, m.pendingOi.ts, m.pendingOi.contracts, out)
    }
    if (rate === null) return 'ok' // mark price only
    if (ts - m.fundingAt < FUNDING_SAMPLE_MS && (next ?? 0) === m.nextFundingTs) return 'ok'
    m.fundingAt = ts
    m.nextFundingTs = next ?? 0
    out.push({
      kind: 'funding',
      ts,
      exchange: EXCHANGE,
      symbol: d.s,
      base: m.meta.base,
      funding_rate: rate,
      interval_hours: m.intervalHours,
      next_funding_ts: next,
      mark_price: mark === null ? null : mark / k,
      index_price: index === null ? null : index / k
    })
    return 'ok'
  }

  private forceOrder(d: ForceOrder, out: NormalizedRecord[]): Outcome {
    const o = d.o
    if (!o || typeof o.s !== 'string' || typeof o.T !== 'number' || (o.S !== 'BUY' && o.S !== 'SELL')) {
      return 'malformed'
    }
    // average price and filled size; "0" or absent before any fill: the order's price and size
    const avg = num(o.ap)
    const price = avg > 0 ? avg : num(o.p)
    const filled = num(o.z)
    const qty = filled > 0 ? filled : num(o.q)
    if (!(price > 0) || !(qty > 0)) return 'malformed'
    const m = this.book.market(o.s)
    if (m === null) return 'unknown'
    const k = m.meta.multiplier
    out.push({
      kind: 'liquidation',
      ts: o.T,
      exchange: EXCHANGE,
      symbol: o.s,
      base: m.meta.base,
      side: o.S === 'SELL' ? 'sell' : 'buy',
      price: price / k,
      qty: qty * k
    })
    return 'ok'
  }

  private rest(channel: string, body: object, out: NormalizedRecord[]): Outcome {
    if (!Array.isArray(body) && 'code' in body && 'msg' in body) return 'error' // {"code":-1121,"msg":"Invalid symbol."}
    const path = channel.split('?', 1)[0]
    const symbol = SYMBOL_PARAM.exec(channel)?.[1] ?? null
    switch (path) {
      case '/fapi/v1/aggTrades':
        return this.restAggTrades(body, symbol, out)
      case '/fapi/v1/openInterest':
        return openInterest(this.book, body as { symbol?: unknown; openInterest?: unknown; time?: unknown }, out)
      case '/futures/data/globalLongShortAccountRatio':
        return longShort(this.book, body, out)
      case '/fapi/v1/exchangeInfo': {
        const outcome = this.book.exchangeInfo(body)
        if (outcome === 'ok') this.marketsVersion++
        return outcome
      }
      case '/fapi/v1/fundingInfo':
        return this.book.fundingInfo(body)
    }
    return 'unknown'
  }

  private restAggTrades(body: unknown, symbol: string | null, out: NormalizedRecord[]): Outcome {
    if (!Array.isArray(body) || symbol === null) return 'malformed'
    let outcome: Outcome = 'ok'
    for (const row of body as AggTrade[]) {
      // a row taken before without its id is a duplicate, not a fault of the page
      if (row === null || typeof row !== 'object' || this.aggTrade(row, symbol, false, out) === 'malformed') {
        outcome = 'malformed'
      }
    }
    return outcome
  }
}
