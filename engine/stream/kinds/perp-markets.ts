/**
 * @module
 * The market check of channels that name a base: a channel is created only for a base with a perpetual
 * market in the live screener (on the venue it names, if any); otherwise 400 `unknown_symbol`.
 */
import { ApiError } from '../../errors.js'
import type { LiveState } from '../../live/live-state.js'

export interface PerpMarket {
  readonly exchange: string
  readonly symbol: string
}

/**
 * The perpetual markets of `base` (on `exchange` when not null), in the default venue order (Binance, Bybit,
 * OKX); throws `unknown_symbol` when there is none.
 */
export function perpMarkets(live: LiveState, base: string, exchange: string | null): readonly PerpMarket[] {
  const markets = live.screener.marketsOf(base).filter((m) => !exchange || m.exchange === exchange)
  if (markets.length === 0) {
    throw new ApiError(
      'unknown_symbol',
      `no perpetual market for ${base}${exchange ? ` on ${exchange}` : ''} (Binance, Bybit or OKX)`
    )
  }
  return markets
}

/** Throws `unknown_symbol` unless `base` has a perpetual market on some venue (channels covering every venue). */
export function requireBase(live: LiveState, base: string): void {
  if (!live.screener.hasBase(base)) {
    throw new ApiError('unknown_symbol', `no perpetual market for ${base} on Binance, Bybit or OKX`)
  }
}
