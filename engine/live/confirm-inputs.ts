/**
 * @module
 * Assembles the confirmation model's inputs for a base asset from the live state: derivatives from the
 * screener book (primary market: Binance, else Bybit, else OKX, then by symbol), the primary market's funding history of
 * the last 30 days (hourly last rates, engine/live/books-load.ts), on-chain inputs from the on-chain book,
 * whale inputs from the whale window. The same assembly serves the live answer and an answer as of a past
 * moment (books loaded as of it, engine/asof/confirm-at.ts).
 */
import type { ConfirmInputs } from '../confirm/confirm.js'
import type { Store } from '../store/store.js'
import type { OnchainBook } from './onchain-book.js'
import type { ScreenerBook } from './screener-book.js'
import type { WhaleWindow } from './whale-window.js'
import type { NormalizedRecord } from '../records/types.js'
import { loadFundingHistory } from './books-load.js'
import { HOUR_MS, liveBounds, pitBounds } from './load-bounds.js'

/** Most markets whose history is cached (every perpetual market fits). */
const HISTORY_MAX = 2_000

/** The primary market's hourly funding history of the last 30 days, as of a moment. */
export interface FundingHistorySource {
  get(exchange: string, symbol: string, nowMs: number): Promise<number[]>
}

/**
 * The live funding histories (engine/live/books-load.ts `loadFundingHistory`, live bounds), cached per
 * market while the clock stays in the hour they were loaded in (the 30-day window moves by whole hours)
 * and no funding reading of that market has been applied since (`applied`).
 */
export class FundingHistory implements FundingHistorySource {
  private readonly cache = new Map<string, { hour: number; rates: number[] }>()
  /** bumped by `applied` and `clear`: a load that started before a change is not cached */
  private epoch = 0

  constructor(private readonly store: Store) {}

  async get(exchange: string, symbol: string, nowMs: number): Promise<number[]> {
    const key = `${exchange}|${symbol}`
    const hour = Math.floor(nowMs / HOUR_MS)
    const hit = this.cache.get(key)
    if (hit && hit.hour === hour) return hit.rates
    const epoch = this.epoch
    const rates = await loadFundingHistory(this.store, exchange, symbol, liveBounds(nowMs))
    if (epoch === this.epoch) {
      if (this.cache.size >= HISTORY_MAX) this.cache.clear()
      this.cache.set(key, { hour, rates })
    }
    return rates
  }

  /** Forgets the histories of markets with a funding reading among `records` (their newest hour changed). */
  applied(records: readonly NormalizedRecord[]): void {
    for (const r of records) {
      if (r.kind === 'funding' && this.cache.delete(`${r.exchange}|${r.symbol}`)) this.epoch++
    }
  }

  clear(): void {
    this.cache.clear()
    this.epoch++
  }
}

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
