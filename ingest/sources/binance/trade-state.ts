/**
 * @module
 * The per-market aggTrade state of a BinanceNormalizer (ingest/normalize/binance.ts), as the replay's
 * byte-level aggTrade path (aggtrade-fast.ts) needs it: the byte path must see and advance the very state
 * the normalizer keeps (last aggregate id for duplicates and gaps, the market meta, trades without an
 * id), because lines it refuses go through the normalizer in between, in order. The normalizer keeps that
 * state in TypeScript-private members; this is a typed view of them, checked once per normalizer. If the
 * normalizer's shape ever changes, `tradeStateOf` returns null and the byte path stays off (every line
 * then takes the general path: slower, same rows); test/integration/replay-fast-path.test.ts fails on it.
 */
import type { MarketMeta } from '../../normalize/binance-markets.js'
import type { BinanceNormalizer, GapHandler } from '../../normalize/binance.js'

/** One market of the normalizer (its `Market`, the fields the aggTrade path reads or writes). */
export interface TradeMarket {
  meta: MarketMeta
  /** last aggregate trade id seen on the socket; -1 before the first */
  lastAggId: number
  /** recent trade ids of trades that came without an aggregate id; null until the first such trade */
  unsequencedIds: unknown
}

/** The normalizer's members the aggTrade path uses, with the normalizer as `this`. */
export interface BinanceTradeState {
  /** the market, made on first sight as the normalizer makes it; null for a contract it does not follow */
  market(symbol: string): TradeMarket | null
  readonly onGap: GapHandler
  duplicates: number
  missingIds: number
}

/** The normalizer's trade state, or null when its members are not the expected ones. */
export function tradeStateOf(n: BinanceNormalizer): BinanceTradeState | null {
  const s = n as unknown as Record<string, unknown>
  const ok =
    typeof s['market'] === 'function' &&
    typeof s['onGap'] === 'function' &&
    typeof s['duplicates'] === 'number' &&
    typeof s['missingIds'] === 'number' &&
    s['markets'] instanceof Map
  return ok ? (n as unknown as BinanceTradeState) : null
}

/** Whether a market from `market()` has the fields the aggTrade path reads. */
export function isTradeMarket(m: TradeMarket): boolean {
  return typeof m.lastAggId === 'number' && typeof m.meta === 'object' && 'unsequencedIds' in m
}
