/**
 * @module
 * Bitget USDT-margined perpetuals (unified v3 API) → normalized records. Socket pushes are
 * `{action, arg:{instType, topic, symbol?}, data:[...], ts}` (`action` `snapshot` or `update`); answers to
 * subscribe are `{event:"subscribe", arg}` or `{event:"error", code, msg, arg?}`; the keepalive answer, the
 * text `pong`, never reaches this module (bitget/connections.ts). REST answers are
 * `{code:"00000", msg, requestTime, data}` (another `code`: an error) and are told apart by their path.
 * Numbers and times arrive as strings.
 *
 * - `publicTrade` → trades: rows `{i, p, v, S, T}`: `i` the trade id (a string; ids say nothing about
 *   missing trades), `S` the taker's side `buy`/`sell`, `T` the trade time (ms). Only `update`s are mapped:
 *   the `snapshot` on subscribe repeats trades from before it (a reconnect's are fetched instead, below).
 *   An id among the market's last RECENT_IDS is a duplicate and skipped.
 * - `reconnect` markers (pushed by the transport when a connection reopens) and `/api/v3/market/fills`
 *   answers → the trades missed while it was down (`trade-window.ts`): rows `{execId, price, size, side,
 *   ts}`, newest first, mapped like socket trades.
 * - `ticker` → funding and open interest from the merged ticker state (`bitget-ticker.ts`). Funding: one
 *   record per market per FUNDING_SAMPLE_MS and at once when the next funding time moves (a settlement);
 *   `fundingRate` is a decimal fraction per interval, the interval the instrument's `fundInterval`.
 *   Open interest: one record per market per OI_SAMPLE_MS; `openInterest` is in coins (contract units),
 *   its USD value is coins × mark price, so it waits for a mark price. The record time is the push `ts`.
 * - `liquidation` (one subscription for every USDT perpetual) → liquidations: rows `{symbol, side, price,
 *   amount, ts}`; `side` is the side of the liquidated *position* (`buy`: a long was liquidated), stored as
 *   the side of the liquidation order: buy → `sell`. `amount` is in coins.
 * - `/api/v2/mix/market/account-long-short` → long_short: `longAccountRatio`/`shortAccountRatio` are the
 *   account shares long/short, `longShortAccountRatio` their ratio; each 5-minute reading once.
 * - `/api/v3/market/instruments` → market meta (plain coin, multiplier, funding interval).
 * Markets quoted per 1000 coins are converted to the plain coin: sizes × 1000, prices ÷ 1000. The market
 * state and the records Bybit maps alike are `ticker-venue.ts`'s.
 */
import type { NormalizedRecord } from '../../engine/records/types.js'
import { BITGET_OK, guessBitgetMarket, usdtPerpetuals, type MarketMeta } from './bitget-markets.js'
import { applyBitgetTicker, emptyBitgetTicker, type BitgetTicker } from './bitget-ticker.js'
import { WS_CHANNEL, type Outcome } from './normalizer.js'
import { TickerVenueNormalizer } from './ticker-venue.js'
import { RECONNECT_CHANNEL, closeWindowUnfilled, openReconnectWindows, serveFill } from './trade-window.js'

export { FUNDING_SAMPLE_MS, OI_SAMPLE_MS } from './ticker-venue.js'

/** REST paths the normalizer maps (bitget/rest.ts builds the requests). */
export const INSTRUMENTS = '/api/v3/market/instruments'
export const FILLS = '/api/v3/market/fills'
export const ACCOUNT_LONG_SHORT = '/api/v2/mix/market/account-long-short'

interface Push {
  action?: unknown
  arg?: { topic?: unknown; symbol?: unknown } | null
  data?: unknown
  ts?: unknown
}

interface TradeRow {
  i?: unknown
  p?: unknown
  v?: unknown
  S?: unknown
  T?: unknown
}

const num = (v: unknown): number =>
  typeof v === 'string' && v !== '' ? Number(v) : typeof v === 'number' ? v : Number.NaN
/** An epoch-ms time sent as a string or a number; NaN when missing, empty or not a positive integer. */
const msOf = (v: unknown): number => {
  const n = num(v)
  return Number.isSafeInteger(n) && n > 0 ? n : Number.NaN
}
const SYMBOL_PARAM = /[?&]symbol=([A-Z0-9]+)/

export class BitgetNormalizer extends TickerVenueNormalizer<BitgetTicker, MarketMeta> {
  readonly venue = 'bitget'

  protected guessMarket(symbol: string): MarketMeta {
    return guessBitgetMarket(symbol)
  }

  protected emptyTicker(): BitgetTicker {
    return emptyBitgetTicker()
  }

  normalize(channel: string, msg: unknown, _recvTs: number, out: NormalizedRecord[]): Outcome {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return 'malformed'
    if (channel === WS_CHANNEL) return this.socket(msg as Record<string, unknown>, out)
    if (channel === RECONNECT_CHANNEL) return openReconnectWindows(msg, this.tradesOf, this.gaps)
    return this.rest(channel, msg as Record<string, unknown>, out)
  }

  private socket(msg: Record<string, unknown>, out: NormalizedRecord[]): Outcome {
    const event = msg['event']
    // {"event":"subscribe","arg":{...}}; {"event":"error","code":30001,"msg":"... doesn't exist"}
    if (typeof event === 'string') return event === 'error' ? 'error' : 'control'
    const push = msg as Push
    const topic = push.arg?.topic
    if (typeof topic !== 'string') return 'unknown'
    if (push.action !== 'snapshot' && push.action !== 'update') return 'malformed'
    if (!Array.isArray(push.data)) return 'malformed'
    switch (topic) {
      case 'publicTrade':
        // the snapshot repeats trades from before the subscription
        return push.action === 'update' ? this.trades(push.data, push.arg?.symbol, out) : 'control'
      case 'ticker':
        return this.ticker(push, out)
      case 'liquidation':
        return this.liquidations(push.data, out)
    }
    return 'unknown'
  }

  private trades(rows: unknown[], argSymbol: unknown, out: NormalizedRecord[]): Outcome {
    if (typeof argSymbol !== 'string' || argSymbol === '') return 'malformed'
    let outcome: Outcome = 'ok'
    for (const row of rows as (TradeRow | null)[]) {
      const o = row !== null && typeof row === 'object' ? this.trade(argSymbol, row, true, out) : 'malformed'
      if (o !== 'ok' && outcome === 'ok') outcome = o
    }
    return outcome
  }

  /** One trade from the socket or from a fills page (`fromSocket` false); ids seen before are skipped. */
  private trade(symbol: string, d: TradeRow, fromSocket: boolean, out: NormalizedRecord[]): Outcome {
    const price = num(d.p)
    const qty = num(d.v)
    const ts = msOf(d.T)
    if (typeof d.i !== 'string' || d.i === '' || Number.isNaN(ts)) return 'malformed'
    if ((d.S !== 'buy' && d.S !== 'sell') || !(price > 0) || !(qty > 0)) return 'malformed'
    return this.pushTrade(symbol, { id: d.i, ts, side: d.S, price, qty }, fromSocket, out)
  }

  /** A fills page: the trades of the market's open reconnect window that were missed. */
  private fills(data: unknown, querySymbol: string | null, out: NormalizedRecord[]): Outcome {
    if (!Array.isArray(data) || querySymbol === null) return 'malformed'
    let outcome: Outcome = 'ok'
    const page: (TradeRow & { id: string; ts: number })[] = []
    for (const r of data as ({
      execId?: unknown
      price?: unknown
      size?: unknown
      side?: unknown
      ts?: unknown
    } | null)[]) {
      const ts = msOf(r?.ts)
      if (typeof r?.execId !== 'string' || r.execId === '' || Number.isNaN(ts)) {
        outcome = 'malformed'
        continue
      }
      page.push({ id: r.execId, ts, i: r.execId, p: r.price, v: r.size, S: r.side, T: ts })
    }
    page.reverse() // Bitget lists newest first
    return serveFill(querySymbol, page, outcome, this.tradesOf, this.gaps, (row) =>
      this.trade(querySymbol, row, false, out)
    )
  }

  private ticker(push: Push, out: NormalizedRecord[]): Outcome {
    const ts = msOf(push.ts)
    const symbol = push.arg?.symbol
    if (Number.isNaN(ts) || typeof symbol !== 'string' || symbol === '') return 'malformed'
    const m = this.market(symbol)
    for (const row of push.data as unknown[]) {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) return 'malformed'
      if (!applyBitgetTicker(m.ticker, row as Record<string, unknown>, push.action === 'snapshot')) return 'malformed'
    }
    const t = m.ticker
    this.funding(m, ts, t.nextFundingTime, m.intervalHours, out)
    // contract units × price per contract unit, once there is a mark price
    this.openInterest(m, ts, t.markPrice > 0 ? t.openInterest * t.markPrice : Number.NaN, out)
    return 'ok'
  }

  private liquidations(rows: unknown[], out: NormalizedRecord[]): Outcome {
    let outcome: Outcome = 'ok'
    for (const row of rows as (Record<string, unknown> | null)[]) {
      if (row === null || typeof row !== 'object' || !this.liquidation(row, out)) outcome = 'malformed'
    }
    return outcome
  }

  private liquidation(d: Record<string, unknown>, out: NormalizedRecord[]): boolean {
    const price = num(d['price'])
    const qty = num(d['amount'])
    const ts = msOf(d['ts'])
    const side = d['side']
    if (typeof d['symbol'] !== 'string' || d['symbol'] === '' || Number.isNaN(ts)) return false
    if ((side !== 'buy' && side !== 'sell') || !(price > 0) || !(qty > 0)) return false
    this.pushLiquidation(d['symbol'], ts, side, price, qty, out)
    return true
  }

  private rest(channel: string, body: Record<string, unknown>, out: NormalizedRecord[]): Outcome {
    const path = channel.split('?', 1)[0]
    const symbol = SYMBOL_PARAM.exec(channel)?.[1] ?? null
    if (body['code'] !== BITGET_OK) {
      if (path === FILLS) closeWindowUnfilled(symbol ?? undefined, this.tradesOf, this.gaps)
      return typeof body['code'] === 'string' ? 'error' : 'malformed'
    }
    switch (path) {
      case INSTRUMENTS:
        return this.instruments(body)
      case FILLS:
        return this.fills(body['data'], symbol, out)
      case ACCOUNT_LONG_SHORT:
        return this.accountLongShort(body['data'], symbol, out)
    }
    return 'unknown'
  }

  private accountLongShort(data: unknown, symbol: string | null, out: NormalizedRecord[]): Outcome {
    if (!Array.isArray(data) || symbol === null) return 'malformed'
    let outcome: Outcome = 'ok'
    const rows: { ts: number; long: number; short: number; ratio: number }[] = []
    for (const r of data as (Record<string, unknown> | null)[]) {
      const ts = msOf(r?.['ts'])
      const long = num(r?.['longAccountRatio'])
      const short = num(r?.['shortAccountRatio'])
      const given = num(r?.['longShortAccountRatio'])
      const ratio = given > 0 ? given : long / short
      if (Number.isNaN(ts) || !(long >= 0) || !(short >= 0) || !(ratio >= 0) || !Number.isFinite(ratio)) {
        outcome = 'malformed'
      } else rows.push({ ts, long, short, ratio })
    }
    rows.sort((a, b) => a.ts - b.ts)
    this.market(symbol) // a market named by the query, even with no reading
    this.pushLongShort(
      rows.map((r) => ({ symbol, ...r })),
      out
    )
    return outcome
  }

  private instruments(body: unknown): Outcome {
    const markets = usdtPerpetuals(body)
    if (markets === null) return 'malformed'
    this.adoptInstruments(markets)
    return 'ok'
  }
}
