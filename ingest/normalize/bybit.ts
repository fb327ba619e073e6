/**
 * @module
 * Bybit v5 linear perpetuals → normalized records. Socket messages are `{topic, type, ts, data, cs?}` pushes
 * or `{success, ret_msg, op, ...}` answers to subscribe/ping; REST answers are `{retCode, retMsg, result}`
 * and are told apart by their path.
 *
 * - `publicTrade.<symbol>` → trades. `S` is the taker's side; `i` the trade id (a UUID string, so ids say
 *   nothing about missing trades); `T` the trade time. An id among the market's last RECENT_IDS is a
 *   duplicate and skipped.
 * - `reconnect` markers (pushed by the transport when a connection reopens) and
 *   `/v5/market/recent-trade` answers → the trades missed while it was down (`trade-window.ts`): rows
 *   `{execId, symbol, price, size, side, time}`, newest first, mapped like socket trades.
 * - `tickers.<symbol>` → funding and open interest from the merged ticker state (`bybit-ticker.ts`: a
 *   snapshot, then deltas with only changed fields). Funding: one record per market per FUNDING_SAMPLE_MS
 *   and at once when the next funding time moves (a settlement); `fundingRate` is a decimal fraction per
 *   interval, the interval is the ticker's `fundingIntervalHour` (Bybit changes it live, e.g. to 1 h when a
 *   rate hits its cap), else the instrument's `fundingInterval`. Open interest: one record per market per
 *   OI_SAMPLE_MS; `openInterest` is in contract units (coins, × 1000 for `1000PEPEUSDT`), `openInterestValue`
 *   in USD. The record time is the message `ts`. A funding record needs only the rate: without a mark
 *   (or index) price yet, those are null.
 * - `allLiquidation.<symbol>` → liquidations. `S` is the side of the liquidated *position* ("Buy: a long
 *   position has been liquidated"), stored as the side of the liquidation order: Buy → `sell`. Price is the
 *   bankruptcy price `p`, size `v`.
 * - `/v5/market/account-ratio` → long_short: `buyRatio`/`sellRatio` are the account shares long/short;
 *   ratio = buy / sell; each 5-minute reading once.
 * - `/v5/market/instruments-info` → market meta (plain coin, multiplier, funding interval).
 * Markets quoted per 1000 coins are converted to the plain coin: sizes × 1000, prices ÷ 1000. The market
 * state and the records Bitget maps alike are `ticker-venue.ts`'s.
 */
import type { NormalizedRecord } from '../../engine/records/types.js'
import { guessBybitMarket, instrumentsPage, type MarketMeta } from './bybit-markets.js'
import { applyTicker, emptyTicker, type TickerState } from './bybit-ticker.js'
import { WS_CHANNEL, type Outcome } from './normalizer.js'
import { TickerVenueNormalizer } from './ticker-venue.js'
import { RECONNECT_CHANNEL, closeWindowUnfilled, openReconnectWindows, serveFill } from './trade-window.js'

export { FUNDING_SAMPLE_MS, OI_SAMPLE_MS } from './ticker-venue.js'

interface Push {
  topic?: unknown
  type?: unknown
  ts?: unknown
  data?: unknown
}

interface TradeRow {
  T?: unknown
  s?: unknown
  S?: unknown
  v?: unknown
  p?: unknown
  i?: unknown
}

/** A row of `/v5/market/recent-trade` (strings; `time` in ms). */
interface RecentTradeRow {
  execId?: unknown
  symbol?: unknown
  price?: unknown
  size?: unknown
  side?: unknown
  time?: unknown
}

interface LiquidationRow {
  T?: unknown
  s?: unknown
  S?: unknown
  v?: unknown
  p?: unknown
}

interface RatioRow {
  symbol?: unknown
  buyRatio?: unknown
  sellRatio?: unknown
  timestamp?: unknown
}

const num = (v: unknown): number => (typeof v === 'string' && v !== '' ? Number(v) : Number.NaN)
/** An epoch-ms time sent as a string or a number; NaN when missing, empty or not a positive integer. */
const msOf = (v: unknown): number => {
  const n = typeof v === 'number' ? v : num(v)
  return Number.isSafeInteger(n) && n > 0 ? n : Number.NaN
}
const SYMBOL_PARAM = /[?&]symbol=([A-Z0-9]+)/

export class BybitNormalizer extends TickerVenueNormalizer<TickerState, MarketMeta> {
  readonly venue = 'bybit'

  protected guessMarket(symbol: string): MarketMeta {
    return guessBybitMarket(symbol)
  }

  protected emptyTicker(): TickerState {
    return emptyTicker()
  }

  normalize(channel: string, msg: unknown, _recvTs: number, out: NormalizedRecord[]): Outcome {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return 'malformed'
    if (channel === WS_CHANNEL) return this.socket(msg as Record<string, unknown>, out)
    if (channel === RECONNECT_CHANNEL) return this.reconnect(msg)
    return this.rest(channel, msg as Record<string, unknown>, out)
  }

  private socket(msg: Record<string, unknown>, out: NormalizedRecord[]): Outcome {
    const push = msg as Push
    if (typeof push.topic === 'string') {
      const dot = push.topic.indexOf('.')
      const kind = dot < 0 ? push.topic : push.topic.slice(0, dot)
      switch (kind) {
        case 'publicTrade':
          return this.trades(push, out)
        case 'tickers':
          return this.ticker(push, push.topic.slice(dot + 1), out)
        case 'allLiquidation':
          return this.liquidations(push, out)
      }
      return 'unknown'
    }
    // {"success":true,"ret_msg":"pong","conn_id":"…","req_id":"7","op":"ping"}, and the subscribe acks
    if (typeof msg['op'] === 'string') return msg['success'] === false ? 'error' : 'control'
    return 'unknown'
  }

  private trades(push: Push, out: NormalizedRecord[]): Outcome {
    if (!Array.isArray(push.data)) return 'malformed'
    let outcome: Outcome = 'ok'
    for (const row of push.data as TradeRow[]) {
      const o = row !== null && typeof row === 'object' ? this.trade(row, true, out) : 'malformed'
      if (o !== 'ok' && outcome === 'ok') outcome = o
    }
    return outcome
  }

  /** One trade from the socket or from a recent-trade page (`fromSocket` false); ids seen before are skipped. */
  private trade(d: TradeRow, fromSocket: boolean, out: NormalizedRecord[]): Outcome {
    const price = num(d.p)
    const qty = num(d.v)
    if (typeof d.s !== 'string' || typeof d.T !== 'number' || typeof d.i !== 'string' || d.i === '') return 'malformed'
    if ((d.S !== 'Buy' && d.S !== 'Sell') || !(price > 0) || !(qty > 0)) return 'malformed'
    const side = d.S === 'Buy' ? 'buy' : 'sell'
    return this.pushTrade(d.s, { id: d.i, ts: d.T, side, price, qty }, fromSocket, out)
  }

  /** A connection reopened: a window per market of it that has traded (`trade-window.ts`). */
  private reconnect(msg: unknown): Outcome {
    return openReconnectWindows(msg, this.tradesOf, this.gaps)
  }

  /** An error answer instead of a trades page: the market's open window closes unfilled. */
  private pageFailed(symbol: string | undefined): void {
    closeWindowUnfilled(symbol, this.tradesOf, this.gaps)
  }

  /** A recent-trade page: the trades of the market's open reconnect window that were missed. */
  private recentTrades(body: Record<string, unknown>, querySymbol: string | null, out: NormalizedRecord[]): Outcome {
    const list = (body['result'] as { list?: unknown } | null)?.list
    if (!Array.isArray(list) || querySymbol === null) return 'malformed'
    let outcome: Outcome = 'ok'
    const page: (TradeRow & { id: string; ts: number })[] = []
    for (const r of list as (RecentTradeRow | null)[]) {
      const ts = msOf(r?.time)
      if (typeof r?.execId !== 'string' || r.execId === '' || Number.isNaN(ts)) {
        outcome = 'malformed'
        continue
      }
      const s = typeof r.symbol === 'string' ? r.symbol : querySymbol
      page.push({ id: r.execId, ts, T: ts, s, S: r.side, v: r.size, p: r.price, i: r.execId })
    }
    page.reverse() // Bybit lists newest first
    return serveFill(querySymbol, page, outcome, this.tradesOf, this.gaps, (row) => this.trade(row, false, out))
  }

  private ticker(push: Push, topicSymbol: string, out: NormalizedRecord[]): Outcome {
    const d = push.data as Record<string, unknown> | null
    const ts = push.ts
    if (d === null || typeof d !== 'object' || Array.isArray(d) || typeof ts !== 'number') return 'malformed'
    if (push.type !== 'snapshot' && push.type !== 'delta') return 'malformed'
    const symbol = typeof d['symbol'] === 'string' ? d['symbol'] : topicSymbol
    if (symbol === '') return 'malformed'
    const m = this.market(symbol)
    if (!applyTicker(m.ticker, d, push.type === 'snapshot')) return 'malformed'
    const t = m.ticker
    const next = Number.isFinite(t.nextFundingTime) && t.nextFundingTime > 0 ? t.nextFundingTime : Number.NaN
    // the ticker's interval wins: Bybit changes it live (e.g. to 1 h when a rate hits its cap)
    const h = t.fundingIntervalHour
    this.funding(m, ts, next, Number.isInteger(h) && h > 0 && h <= 24 ? h : m.intervalHours, out)
    this.openInterest(m, ts, t.openInterestValue >= 0 ? t.openInterestValue : Number.NaN, out)
    return 'ok'
  }

  private liquidations(push: Push, out: NormalizedRecord[]): Outcome {
    // documented as an array of liquidations; a single object is taken too
    const rows = Array.isArray(push.data) ? push.data : [push.data]
    let outcome: Outcome = 'ok'
    for (const row of rows as LiquidationRow[]) {
      if (row === null || typeof row !== 'object' || !this.liquidation(row, out)) outcome = 'malformed'
    }
    return outcome
  }

  private liquidation(d: LiquidationRow, out: NormalizedRecord[]): boolean {
    const price = num(d.p)
    const qty = num(d.v)
    if (typeof d.s !== 'string' || typeof d.T !== 'number' || (d.S !== 'Buy' && d.S !== 'Sell')) return false
    if (!(price > 0) || !(qty > 0)) return false
    // `S` is the side of the liquidated position
    this.pushLiquidation(d.s, d.T, d.S === 'Buy' ? 'buy' : 'sell', price, qty, out)
    return true
  }

  private rest(channel: string, body: Record<string, unknown>, out: NormalizedRecord[]): Outcome {
    const path = channel.split('?', 1)[0]
    if (body['retCode'] !== 0) {
      if (path === '/v5/market/recent-trade') this.pageFailed(SYMBOL_PARAM.exec(channel)?.[1])
      return typeof body['retCode'] === 'number' ? 'error' : 'malformed'
    }
    switch (path) {
      case '/v5/market/account-ratio':
        return this.accountRatio(body, SYMBOL_PARAM.exec(channel)?.[1] ?? null, out)
      case '/v5/market/instruments-info':
        return this.instruments(body)
      case '/v5/market/recent-trade':
        return this.recentTrades(body, SYMBOL_PARAM.exec(channel)?.[1] ?? null, out)
    }
    return 'unknown'
  }

  private accountRatio(body: Record<string, unknown>, querySymbol: string | null, out: NormalizedRecord[]): Outcome {
    const list = (body['result'] as { list?: unknown } | null)?.list
    if (!Array.isArray(list)) return 'malformed'
    let outcome: Outcome = 'ok'
    const rows: { symbol: string; ts: number; buy: number; sell: number }[] = []
    for (const row of list as RatioRow[]) {
      const symbol = typeof row?.symbol === 'string' ? row.symbol : querySymbol
      const ts = msOf(row?.timestamp)
      const buy = num(row?.buyRatio)
      const sell = num(row?.sellRatio)
      if (symbol === null || Number.isNaN(ts) || !(buy >= 0) || !(sell > 0)) outcome = 'malformed'
      else rows.push({ symbol, ts, buy, sell })
    }
    rows.sort((a, b) => a.ts - b.ts) // Bybit lists newest first
    this.pushLongShort(
      rows.map((r) => ({ symbol: r.symbol, ts: r.ts, ratio: r.buy / r.sell, long: r.buy, short: r.sell })),
      out
    )
    return outcome
  }

  private instruments(body: unknown): Outcome {
    const page = instrumentsPage(body)
    if (page === null) return 'malformed'
    this.adoptInstruments(page.markets)
    return 'ok'
  }
}
