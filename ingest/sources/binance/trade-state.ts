/**
 * @module
 * The per-market aggTrade state of a BinanceNormalizer (ingest/normalize/binance.ts), as the replay's
 * byte-level aggTrade path (aggtrade-fast.ts) needs it: the byte path must see and advance the very state
 * the normalizer keeps (last aggregate id for duplicates and gaps, the market meta, trades without an
 * id), because lines it refuses go through the normalizer in between, in order. The normalizer is this
 * interface (its public `tradeMarket`, `onGap` and counters); the type checker holds the two together.
 */
import type { MarketMeta } from '../../normalize/binance-markets.js'
import type { GapHandler } from '../../normalize/binance.js'

/** One market of the normalizer (its `Market`, the fields the aggTrade path reads or writes). */
export interface TradeMarket {
  meta: MarketMeta
  /** last aggregate trade id seen on the socket; -1 before the first */
  lastAggId: number
  /** recent trade ids of trades that came without an aggregate id; null until the first such trade */
  unsequencedIds: unknown
}

/** The normalizer's members the aggTrade path uses. */
export interface BinanceTradeState {
  /** the market, made on first sight as the normalizer makes it; null for a contract it does not follow */
  tradeMarket(symbol: string): TradeMarket | null
  readonly onGap: GapHandler
  duplicates: number
  missingIds: number
  /**
   * changes whenever a market the byte path may hold is dropped or a market's meta replaced (exchangeInfo):
   * the byte path forgets the markets it cached when it sees a new value
   */
  readonly marketsVersion: number
}
