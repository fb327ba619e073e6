/**
 * @module
 * The Binance USD-M markets the normalizer follows (ingest/normalize/binance.ts): per market its meta,
 * funding interval, latest mark price, last aggregate trade id and sampling marks, made on first sight and
 * corrected by `/fapi/v1/exchangeInfo` (metas, delivery contracts) and `/fapi/v1/fundingInfo` (intervals).
 * Delivery contracts are not followed: `market` answers null for them.
 */
import { DEFAULT_FUNDING_INTERVAL_HOURS } from '../../engine/records/types.js'
import {
  deliveryContracts,
  fundingIntervals,
  guessMarket,
  isDeliverySymbol,
  usdtPerpetuals,
  type MarketMeta
} from './binance-markets.js'
import type { Outcome } from './normalizer.js'
import type { RecentIds } from './trade-window.js'

/** Per-market state: meta, the latest mark price, the last aggregate trade id and sampling marks. */
export interface Market {
  meta: MarketMeta
  intervalHours: number
  /** latest mark price per contract unit; NaN until the first mark price */
  mark: number
  /** last aggregate trade id seen on the socket; -1 before the first */
  lastAggId: number
  /** trade_ids of the latest trades that came without an aggregate id; null until the first such trade */
  unsequencedIds: RecentIds | null
  fundingAt: number
  nextFundingTs: number
  lastLongShortTs: number
  pendingOi: { ts: number; contracts: number } | null
}

export class BinanceMarketBook {
  private readonly markets = new Map<string, Market>()
  /** delivery contracts named by the last exchangeInfo (each also carries the `_YYMMDD` suffix today) */
  private dated = new Set<string>()

  /** The market's state if it was made, without making it. */
  peek(symbol: string): Market | undefined {
    return this.markets.get(symbol)
  }

  /** The state of a perpetual, made on first sight; null for a delivery contract (not followed). */
  market(symbol: string): Market | null {
    let m = this.markets.get(symbol)
    if (m === undefined) {
      if (isDeliverySymbol(symbol) || this.dated.has(symbol)) return null
      m = {
        meta: guessMarket(symbol),
        intervalHours: DEFAULT_FUNDING_INTERVAL_HOURS,
        mark: Number.NaN,
        lastAggId: -1,
        unsequencedIds: null,
        fundingAt: -Infinity,
        nextFundingTs: 0,
        lastLongShortTs: 0,
        pendingOi: null
      }
      this.markets.set(symbol, m)
    }
    return m
  }

  /** exchangeInfo: the perpetuals' metas and the delivery contracts (dropped if seen before the list). */
  exchangeInfo(body: unknown): Outcome {
    const markets = usdtPerpetuals(body)
    const dated = deliveryContracts(body)
    if (markets === null || dated === null) return 'malformed'
    this.dated = new Set(dated)
    for (const symbol of dated) this.markets.delete(symbol) // seen before the list said what it is
    for (const meta of markets) {
      const m = this.market(meta.symbol)
      if (m !== null) m.meta = meta
    }
    return 'ok'
  }

  /** fundingInfo: the intervals of the markets it names; the others are back to the default. */
  fundingInfo(body: unknown): Outcome {
    const intervals = fundingIntervals(body)
    if (intervals === null) return 'malformed'
    // the list names only non-default markets: one that left it is back to the default (Binance's: 8 h)
    for (const m of this.markets.values()) m.intervalHours = DEFAULT_FUNDING_INTERVAL_HOURS
    for (const [symbol, hours] of intervals) {
      const m = this.market(symbol)
      if (m !== null) m.intervalHours = hours
    }
    return 'ok'
  }
}
