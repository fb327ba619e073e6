/**
 * @module
 * What the ticker venues (Bybit, Bitget) normalize alike, over the state of one market each: its meta and
 * funding interval, the merged ticker (each venue's own `*-ticker.ts`), funding and open-interest sampling,
 * the last long/short reading and the recent trades with their reconnect window (`trade-window.ts`). The
 * venue's normalizer reads its own message shapes and hands the values here, so it holds only what
 * differs: topics, field names, sides, and where the funding interval and the USD open interest come from.
 * Markets quoted per 1000 coins are converted to the plain coin: sizes × multiplier, prices ÷ multiplier.
 */
import { DEFAULT_FUNDING_INTERVAL_HOURS, type NormalizedRecord } from '../../engine/records/types.js'
import type { Outcome, VenueNormalizer } from './normalizer.js'
import { MarketTrades, NO_GAPS, type ReconnectGaps, type TradesOf } from './trade-window.js'

/** One funding record per market per minute: tickers push several times a second, the rate moves slowly. */
export const FUNDING_SAMPLE_MS = 60_000
/** One open interest record per market per minute, the cadence of the other venues. */
export const OI_SAMPLE_MS = 60_000

/** A market's meta as both venues keep it. */
export interface PerpMeta {
  /** exchange-native symbol, e.g. `BTCUSDT`, `1000PEPEUSDT` */
  readonly symbol: string
  /** the plain coin (`PEPE` for `1000PEPEUSDT`) */
  readonly base: string
  readonly quote: string
  /** coins per contract unit: 1000 for `1000PEPEUSDT`, else 1 */
  readonly multiplier: number
}

/** The ticker fields both venues send, as numbers per contract unit; NaN while unknown. */
export interface TickerFields {
  markPrice: number
  indexPrice: number
  fundingRate: number
  nextFundingTime: number
  /** contract units */
  openInterest: number
}

/** One market's state. */
export interface TickerMarket<T extends TickerFields, M extends PerpMeta> {
  meta: M
  /** from the instrument list (the venue may override it per record) */
  intervalHours: number
  readonly ticker: T
  fundingAt: number
  /** next funding time of the last funding record, epoch ms (NaN before the first or when unknown) */
  nextFundingTs: number
  oiAt: number
  lastLongShortTs: number
  readonly trades: MarketTrades
}

export abstract class TickerVenueNormalizer<T extends TickerFields, M extends PerpMeta> implements VenueNormalizer {
  abstract readonly venue: string
  protected readonly markets = new Map<string, TickerMarket<T, M>>()

  /** `gaps` hears of reconnect windows and their fills (the transport fetches; a replay only counts). */
  constructor(protected readonly gaps: ReconnectGaps = NO_GAPS) {}

  abstract normalize(channel: string, msg: unknown, recvTs: number, out: NormalizedRecord[]): Outcome
  /** The meta of a market seen before the instrument list named it. */
  protected abstract guessMarket(symbol: string): M
  protected abstract emptyTicker(): T

  /** Known markets (from the instrument list or seen in messages). */
  marketMeta(symbol: string): M | undefined {
    return this.markets.get(symbol)?.meta
  }

  /** The merged ticker state of a market (tests and diagnostics). */
  tickerOf(symbol: string): Readonly<T> | undefined {
    return this.markets.get(symbol)?.ticker
  }

  /** The market's state, made on first sight. */
  protected market(symbol: string): TickerMarket<T, M> {
    let m = this.markets.get(symbol)
    if (m === undefined) {
      m = {
        meta: this.guessMarket(symbol),
        intervalHours: DEFAULT_FUNDING_INTERVAL_HOURS,
        ticker: this.emptyTicker(),
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

  protected readonly tradesOf: TradesOf = (s) => this.markets.get(s)?.trades

  /**
   * One trade of `symbol`, from the socket or a recent-trades page (`fromSocket` false): an id among the
   * market's recent ones is a duplicate and skipped. Price and size per contract unit.
   */
  protected pushTrade(
    symbol: string,
    t: {
      readonly id: string
      readonly ts: number
      readonly side: 'buy' | 'sell'
      readonly price: number
      readonly qty: number
    },
    fromSocket: boolean,
    out: NormalizedRecord[]
  ): Outcome {
    const m = this.market(symbol)
    if (m.trades.recent.has(t.id)) return 'duplicate'
    m.trades.accept(t.id, t.ts, fromSocket)
    const meta = m.meta
    const k = meta.multiplier
    out.push({
      kind: 'trade',
      ts: t.ts,
      exchange: this.venue,
      market: 'perp',
      symbol: meta.symbol,
      base: meta.base,
      quote: meta.quote,
      side: t.side,
      price: t.price / k,
      qty: t.qty * k,
      trade_id: t.id
    })
    return 'ok'
  }

  /**
   * A funding record from the merged ticker: one per market per FUNDING_SAMPLE_MS, and at once when the
   * next funding time moves (a settlement). `next`: epoch ms or NaN; `intervalHours`: of this record.
   */
  protected funding(
    m: TickerMarket<T, M>,
    ts: number,
    next: number,
    intervalHours: number,
    out: NormalizedRecord[]
  ): void {
    const t = m.ticker
    if (!Number.isFinite(t.fundingRate)) return
    const moved = !Object.is(next, m.nextFundingTs)
    if (ts - m.fundingAt < FUNDING_SAMPLE_MS && !moved) return
    m.fundingAt = ts
    m.nextFundingTs = next
    const k = m.meta.multiplier
    out.push({
      kind: 'funding',
      ts,
      exchange: this.venue,
      symbol: m.meta.symbol,
      base: m.meta.base,
      funding_rate: t.fundingRate,
      interval_hours: intervalHours,
      next_funding_ts: Number.isNaN(next) ? null : next,
      mark_price: t.markPrice > 0 ? t.markPrice / k : null,
      index_price: t.indexPrice > 0 ? t.indexPrice / k : null
    })
  }

  /** An open-interest record from the merged ticker, one per market per OI_SAMPLE_MS; `usd` NaN: none yet. */
  protected openInterest(m: TickerMarket<T, M>, ts: number, usd: number, out: NormalizedRecord[]): void {
    const t = m.ticker
    if (!(t.openInterest >= 0) || !(usd >= 0) || ts - m.oiAt < OI_SAMPLE_MS) return
    m.oiAt = ts
    out.push({
      kind: 'open_interest',
      ts,
      exchange: this.venue,
      symbol: m.meta.symbol,
      base: m.meta.base,
      oi_base: t.openInterest * m.meta.multiplier,
      oi_usd: usd
    })
  }

  /**
   * A liquidation: `positionSide` is the side of the liquidated position, stored as the side of the
   * liquidation order (a long position, buy, is closed by a sell order). Price and size per contract unit.
   */
  protected pushLiquidation(
    symbol: string,
    ts: number,
    positionSide: 'buy' | 'sell',
    price: number,
    qty: number,
    out: NormalizedRecord[]
  ): void {
    const meta = this.market(symbol).meta
    const k = meta.multiplier
    out.push({
      kind: 'liquidation',
      ts,
      exchange: this.venue,
      symbol: meta.symbol,
      base: meta.base,
      side: positionSide === 'buy' ? 'sell' : 'buy',
      price: price / k,
      qty: qty * k
    })
  }

  /** Long/short readings of markets, oldest first: each 5-minute reading once (one polled again is skipped). */
  protected pushLongShort(
    rows: readonly { symbol: string; ts: number; ratio: number; long: number; short: number }[],
    out: NormalizedRecord[]
  ): void {
    for (const r of rows) {
      const m = this.market(r.symbol)
      if (r.ts <= m.lastLongShortTs) continue // the same 5-minute reading polled again
      m.lastLongShortTs = r.ts
      out.push({
        kind: 'long_short',
        ts: r.ts,
        exchange: this.venue,
        symbol: m.meta.symbol,
        base: m.meta.base,
        long_short_ratio: r.ratio,
        long_account: r.long,
        short_account: r.short
      })
    }
  }

  /** The instrument list: each market's meta and funding interval. */
  protected adoptInstruments(markets: readonly (M & { readonly intervalHours: number })[]): void {
    for (const market of markets) {
      const { intervalHours, ...meta } = market
      const m = this.market(meta.symbol)
      m.meta = meta as unknown as M
      m.intervalHours = intervalHours
    }
  }
}
