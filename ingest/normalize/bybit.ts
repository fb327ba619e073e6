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
 * Markets quoted per 1000 coins are converted to the plain coin: sizes × 1000, prices ÷ 1000.
 */
import { DEFAULT_FUNDING_INTERVAL_HOURS, type NormalizedRecord } from '../../engine/records/types.js'
import { guessBybitMarket, instrumentsPage, type MarketMeta } from './bybit-markets.js'
import { applyTicker, emptyTicker, type TickerState } from './bybit-ticker.js'
import { WS_CHANNEL, type Outcome, type VenueNormalizer } from './normalizer.js'
import {
  MarketTrades,
  NO_GAPS,
  RECONNECT_CHANNEL,
  closeWindowUnfilled,
  openReconnectWindows,
  type ReconnectGaps,
  type TradesOf
} from './trade-window.js'

/** One funding record per market per minute: tickers push every 100 ms, the rate moves slowly. */
export const FUNDING_SAMPLE_MS = 60_000
/** One open interest record per market per minute, the cadence of the Binance adapter's OI polling. */
export const OI_SAMPLE_MS = 60_000
const EXCHANGE = 'bybit'

interface Market {
  meta: MarketMeta
  /** from instruments-info; the ticker's fundingIntervalHour wins when present */
  intervalHours: number
  readonly ticker: TickerState
  fundingAt: number
  /** next funding time of the last funding record, epoch ms (NaN before the first) */
  nextFundingTs: number
  oiAt: number
  lastLongShortTs: number
  readonly trades: MarketTrades
}

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

export class BybitNormalizer implements VenueNormalizer {
  readonly venue = EXCHANGE
  private readonly markets = new Map<string, Market>()

  /** `gaps` hears of reconnect windows and their fills (the transport fetches; a replay only counts). */
  constructor(private readonly gaps: ReconnectGaps = NO_GAPS) {}

  /** Known markets (from instruments-info or seen in messages). */
  marketMeta(symbol: string): MarketMeta | undefined {
    return this.markets.get(symbol)?.meta
  }

  /** The merged ticker state of a market (tests and diagnostics). */
  tickerOf(symbol: string): Readonly<TickerState> | undefined {
    return this.markets.get(symbol)?.ticker
  }

  private market(symbol: string): Market {
    let m = this.markets.get(symbol)
    if (m === undefined) {
      m = {
        meta: guessBybitMarket(symbol),
        intervalHours: DEFAULT_FUNDING_INTERVAL_HOURS,
        ticker: emptyTicker(),
        fundingAt: -Infinity,
        nextFundingTs: Number.NaN,
        oiAt: -Infinity,
        lastLongShortTs: 0,
        trades: new MarketTrades()
      }
      this.markets.set(symbol, m)
    }
    return m
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
    const m = this.market(d.s)
    if (m.trades.recent.has(d.i)) return 'duplicate'
    m.trades.accept(d.i, d.T, fromSocket)
    const meta = m.meta
    const k = meta.multiplier
    out.push({
      kind: 'trade',
      ts: d.T,
      exchange: EXCHANGE,
      market: 'perp',
      symbol: meta.symbol,
      base: meta.base,
      quote: meta.quote,
      side: d.S === 'Buy' ? 'buy' : 'sell',
      price: price / k,
      qty: qty * k,
      trade_id: d.i
    })
    return 'ok'
  }

  /** A connection reopened: a window per market of it that has traded (`trade-window.ts`). */
  private reconnect(msg: unknown): Outcome {
    return openReconnectWindows(msg, this.tradesOf, this.gaps)
  }

  /** An error answer instead of a trades page: the market's open window closes unfilled. */
  private pageFailed(symbol: string | undefined): void {
    closeWindowUnfilled(symbol, this.tradesOf, this.gaps)
  }

  private readonly tradesOf: TradesOf = (s) => this.markets.get(s)?.trades

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
    const m = this.markets.get(querySymbol)
    const fill = m?.trades.fill(page)
    if (fill === null || fill === undefined) return outcome // no open window: an answer already served
    let recovered = 0
    for (const row of fill.rows) {
      const o = this.trade(row, false, out)
      if (o === 'ok') recovered++
      else if (o === 'malformed') outcome = 'malformed'
    }
    this.gaps.served(querySymbol, recovered, fill.reachedBack)
    return outcome
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
    this.funding(m, ts, out)
    this.openInterest(m, ts, out)
    return 'ok'
  }

  private funding(m: Market, ts: number, out: NormalizedRecord[]): void {
    const t = m.ticker
    if (!Number.isFinite(t.fundingRate)) return
    const next = Number.isFinite(t.nextFundingTime) && t.nextFundingTime > 0 ? t.nextFundingTime : Number.NaN
    const moved = !Object.is(next, m.nextFundingTs)
    if (ts - m.fundingAt < FUNDING_SAMPLE_MS && !moved) return
    m.fundingAt = ts
    m.nextFundingTs = next
    const k = m.meta.multiplier
    const h = t.fundingIntervalHour
    out.push({
      kind: 'funding',
      ts,
      exchange: EXCHANGE,
      symbol: m.meta.symbol,
      base: m.meta.base,
      funding_rate: t.fundingRate,
      interval_hours: Number.isInteger(h) && h > 0 && h <= 24 ? h : m.intervalHours,
      next_funding_ts: Number.isNaN(next) ? null : next,
      mark_price: t.markPrice > 0 ? t.markPrice / k : null,
      index_price: t.indexPrice > 0 ? t.indexPrice / k : null
    })
  }

  private openInterest(m: Market, ts: number, out: NormalizedRecord[]): void {
    const t = m.ticker
    if (!(t.openInterest >= 0) || !(t.openInterestValue >= 0) || ts - m.oiAt < OI_SAMPLE_MS) return
    m.oiAt = ts
    out.push({
      kind: 'open_interest',
      ts,
      exchange: EXCHANGE,
      symbol: m.meta.symbol,
      base: m.meta.base,
      oi_base: t.openInterest * m.meta.multiplier,
      oi_usd: t.openInterestValue
    })
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
    const meta = this.market(d.s).meta
    const k = meta.multiplier
    out.push({
      kind: 'liquidation',
      ts: d.T,
      exchange: EXCHANGE,
      symbol: meta.symbol,
      base: meta.base,
      side: d.S === 'Buy' ? 'sell' : 'buy', // a long position (Buy) is closed by a sell order
      price: price / k,
      qty: qty * k
    })
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
    for (const r of rows) {
      const m = this.market(r.symbol)
      if (r.ts <= m.lastLongShortTs) continue // the same 5-minute reading polled again
      m.lastLongShortTs = r.ts
      out.push({
        kind: 'long_short',
        ts: r.ts,
        exchange: EXCHANGE,
        symbol: m.meta.symbol,
        base: m.meta.base,
        long_short_ratio: r.buy / r.sell,
        long_account: r.buy,
        short_account: r.sell
      })
    }
    return outcome
  }

  private instruments(body: unknown): Outcome {
    const page = instrumentsPage(body)
    if (page === null) return 'malformed'
    for (const market of page.markets) {
      const { intervalHours, ...meta } = market
      const m = this.market(meta.symbol)
      m.meta = meta
      m.intervalHours = intervalHours
    }
    return 'ok'
  }
}
