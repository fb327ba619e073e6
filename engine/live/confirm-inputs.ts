/**
 * @module
 * Assembles the confirmation model's inputs for a base asset from the live state: derivatives from the
 * screener book (primary market: Binance, else Bybit, else OKX, then by symbol), the primary market's funding history of
 * the last 30 days (hourly last rates, engine/live/funding-history.ts), on-chain inputs from the on-chain book,
 * whale inputs from the whale window. The same assembly serves the live answer and an answer as of a past
 * moment (books loaded as of it, engine/asof/confirm-at.ts).
 */
import type { ConfirmInputs } from '../confirm/confirm.js'
import type { Store } from '../store/store.js'
import type { OnchainBook } from './onchain-book.js'
import type { ScreenerBook } from './screener-book.js'
import type { WhaleWindow } from './whale-window.js'
import { loadFundingHistory } from './books-load.js'
import { pitBounds } from './load-bounds.js'
import type { FundingHistorySource } from './funding-history.js'

/** A point-in-time history source: each call loads the history as of `nowMs` known by `knownByMs`. */
export function fundingHistoryAt(store: Store, knownByMs: number): FundingHistorySource {
  return {
    get: (exchange, symbol, nowMs) =>
      loadFundingHistory(store, exchange, symbol, pitBounds({ asOfMs: nowMs, knownByMs }))
  }
}

export interface ConfirmSources {
  readonly screener: ScreenerBook
  readonly onchain: OnchainBook
  readonly whales: WhaleWindow
  readonly fundingHistory: FundingHistorySource
}

export async function buildConfirmInputs(base: string, nowMs: number, s: ConfirmSources): Promise<ConfirmInputs> {
  const d = s.screener.baseStats(base, nowMs)
  const history = d.primary ? await s.fundingHistory.get(d.primary.exchange, d.primary.symbol, nowMs) : []
  const w = s.whales.flows24h(base, nowMs)
  return {
    funding_rate: d.fundingRate,
    funding_interval_hours: d.fundingIntervalHours,
    funding_history_30d: history.length ? history : null,
    long_short_ratio: d.longShortRatio,
    oi_change_24h: d.oiChange24h,
    price_change_24h: d.priceChange24h,
    exchange_netflow_usd_24h: s.onchain.netflow24h(base, nowMs),
    mvrv: s.onchain.mvrv(base),
    whale_net_flow_usd_24h: w.net,
    whales_long: w.net === null ? null : w.longs,
    whales_short: w.net === null ? null : w.shorts
  }
}
