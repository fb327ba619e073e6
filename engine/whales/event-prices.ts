/**
 * @module
 * USD prices of whale events at their block time, from the service's own market data: the 1-minute candles
 * the perpetual feeds' trades build (schemas/002_candles.sql). The price of an asset at `ts` is the close of
 * its newest minute at or before `ts`, averaged over the exchanges that have that minute, within
 * MAX_STALENESS_MS; older or absent → no price (the event keeps usd_value null). Quotes are USDT-margined
 * perpetuals: 1 USDT is taken as 1 USD. Stablecoins (price asset `USD`) never reach this module.
 * `prepare()` loads the minutes of a block range in one query; `price()` is then a lookup.
 */
import type { Store } from '../store/store.js'
import type { EventPrice, EventPricer } from './tx-events.js'

/** a price older than this is not the price at the event: 1 hour */
export const MAX_STALENESS_MS = 3_600_000

interface Minute {
  /** minute start, epoch ms */
  readonly t: number
  readonly close: number
  readonly source: string
}

export class StorePricer implements EventPricer {
  /** asset → minutes ascending */
  private minutes = new Map<string, Minute[]>()
  /** price lookups that found no price (counted for health) */
  misses = 0

  constructor(private readonly store: Store) {}

  /** Loads the minutes of `assets` covering [fromMs − MAX_STALENESS_MS, toMs]. */
  async prepare(assets: readonly string[], fromMs: number, toMs: number): Promise<void> {
    const wanted = [...new Set(assets.map((a) => a.toUpperCase()))].filter((a) => a !== 'USD')
    this.minutes = new Map()
    if (wanted.length === 0) return
    const rows = await this.store.query<{ base: string; t: number; close: number; src: string }>(
      `SELECT base, toUnixTimestamp(bucket) * 1000 AS t, avg(c) AS close,
         arrayStringConcat(arraySort(groupArray(exchange)), '+') AS src
       FROM (
         SELECT base, exchange, bucket, argMaxMerge(close) AS c FROM candles_1m
         WHERE base IN {assets:Array(String)}
           AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket <= toDateTime({to:UInt32}, 'UTC')
         GROUP BY base, exchange, bucket
       )
       GROUP BY base, bucket ORDER BY base, t`,
      {
        assets: wanted,
        from: Math.max(0, Math.floor((fromMs - MAX_STALENESS_MS) / 1000)),
        to: Math.ceil(toMs / 1000)
      }
    )
    for (const r of rows) {
      let list = this.minutes.get(r.base)
      if (list === undefined) this.minutes.set(r.base, (list = []))
      list.push({ t: Number(r.t), close: r.close, source: `candles_1m:${r.src}` })
    }
  }

  price(asset: string, ts: number): EventPrice | null {
    const list = this.minutes.get(asset.toUpperCase())
    // binary search: the newest minute starting at or before ts
    let lo = 0
    let hi = (list?.length ?? 0) - 1
    let found: Minute | undefined
    while (list !== undefined && lo <= hi) {
      const mid = (lo + hi) >> 1
      const m = list[mid]!
      if (m.t <= ts) {
        found = m
        lo = mid + 1
      } else hi = mid - 1
    }
    if (found === undefined || ts - found.t > MAX_STALENESS_MS || !(found.close > 0)) {
      this.misses += 1
      return null
    }
    return { usd: found.close, source: found.source }
  }
}
