/**
 * @module
 * Assembles the confirmation model's inputs for a base asset from the live state: derivatives from the
 * screener book (primary market: Binance, else Bybit, else OKX), the primary market's funding history of
 * the last 30 days (hourly last rates from `funding_1h`, loaded on first use and cached for an hour), on-chain
 * inputs from the on-chain book, whale inputs from the whale window.
 */
import type { ConfirmInputs } from '../confirm/confirm.js'
import type { Store } from '../store/store.js'
import type { OnchainBook } from './onchain-book.js'
import type { ScreenerBook } from './screener-book.js'
import type { WhaleWindow } from './whale-window.js'

/** How long a loaded funding history is reused, ms: hourly buckets change once an hour. */
const HISTORY_TTL_MS = 3_600_000
/** Most markets whose history is cached (every perpetual market fits). */
const HISTORY_MAX = 2_000

export class FundingHistory {
  private readonly cache = new Map<string, { at: number; rates: number[] }>()

  constructor(private readonly store: Store) {}

  async get(exchange: string, symbol: string, nowMs: number): Promise<number[]> {
    const key = `${exchange}|${symbol}`
    const hit = this.cache.get(key)
    if (hit && nowMs - hit.at < HISTORY_TTL_MS) return hit.rates
    const rows = await this.store.query<{ r: number }>(
      `SELECT argMaxMerge(rate_last) AS r FROM funding_1h
       WHERE exchange = {exchange:String} AND symbol = {symbol:String} AND bucket >= now() - INTERVAL 30 DAY
       GROUP BY bucket ORDER BY bucket`,
      { exchange, symbol }
    )
    if (this.cache.size >= HISTORY_MAX) this.cache.clear()
    const rates = rows.map((x) => x.r)
    this.cache.set(key, { at: nowMs, rates })
    return rates
  }

  clear(): void {
    this.cache.clear()
  }
}

export interface ConfirmSources {
  readonly screener: ScreenerBook
  readonly onchain: OnchainBook
  readonly whales: WhaleWindow
  readonly fundingHistory: FundingHistory
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
