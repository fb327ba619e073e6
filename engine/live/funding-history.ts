/**
 * @module
 * The live funding histories of the confirmation model: per market, the hourly last funding rates of the last
 * 30 days (engine/live/funding-tail.ts), loaded once per clock hour and kept current between loads by the
 * funding readings the live state applies. A market's readings arrive every few seconds, so a history
 * reloaded on each one would read 30 days from the store for nearly every evaluation.
 *
 * Invariant: a cached history equals what a load of the store returns once the store holds every reading
 * applied so far. Readings are applied when received, before the store has written them, so the newest
 * reading of each of a market's last `RECENT_HOURS` hours with readings is kept, a load reads those hours
 * from the raw readings with the time of each hour's last one, and merges the kept readings in. A reading
 * then folds into a cached history (engine/live/funding-tail.ts `foldReading`) or drops it for a load.
 * Not covered: a reading of an hour older than the market's last `RECENT_HOURS` hours with readings, applied
 * but not yet written when a load runs (a reading that late, or a store that many hours behind): the history
 * lacks it until the next clock hour's load.
 */
import type { NormalizedRecord } from '../records/types.js'
import type { Store } from '../store/store.js'
import { foldReading, hourOf, loadFundingRows, mergeReadings, type FundingTail, type Reading } from './funding-tail.js'
import { HOUR_MS } from './load-bounds.js'

/** Most markets whose history is cached (every perpetual market fits). */
const HISTORY_MAX = 2_000
/** Hours per market whose newest applied reading is kept for loads to merge. */
const RECENT_HOURS = 6

/** The primary market's hourly funding history of the last 30 days, as of a moment. */
export interface FundingHistorySource {
  get(exchange: string, symbol: string, nowMs: number): Promise<number[]>
}

interface Entry extends FundingTail {
  /** the clock hour (ms / HOUR_MS) the history was loaded in: the 30-day window moves by whole hours */
  readonly hour: number
}

/** The live histories, cached per market while the clock stays in the hour they were loaded in. */
export class FundingHistory implements FundingHistorySource {
  private readonly cache = new Map<string, Entry>()
  /** per market, its newest applied reading in each of its last RECENT_HOURS hours with readings, by hour */
  private readonly recent = new Map<string, Reading[]>()
  /** bumped by `clear`: a load that started before it is not cached */
  private epoch = 0

  constructor(private readonly store: Store) {}

  async get(exchange: string, symbol: string, nowMs: number): Promise<number[]> {
    const key = `${exchange}|${symbol}`
    const hour = Math.floor(nowMs / HOUR_MS)
    const hit = this.cache.get(key)
    if (hit && hit.hour === hour) return hit.rates
    const epoch = this.epoch
    // the raw readings from the oldest kept hour, and at least the clock's previous hour
    const kept = this.recent.get(key)
    const rawFromMs = Math.min(hour * HOUR_MS - HOUR_MS, kept?.[0]?.hourMs ?? Infinity)
    const rows = await loadFundingRows(this.store, exchange, symbol, nowMs, rawFromMs)
    // the readings applied while the store was read are merged too
    const { tail, exact } = mergeReadings(rows, this.recent.get(key) ?? [])
    // at the hour's first millisecond the window holds one hour more than for the rest of the hour
    if (exact && epoch === this.epoch && nowMs % HOUR_MS !== 0) {
      if (this.cache.size >= HISTORY_MAX) this.cache.clear()
      this.cache.set(key, { ...tail, hour })
    }
    return tail.rates
  }

  /** Folds the funding readings among `records` into the histories and keeps them for loads to merge. */
  applied(records: readonly NormalizedRecord[]): void {
    for (const rec of records) {
      if (rec.kind !== 'funding') continue
      const key = `${rec.exchange}|${rec.symbol}`
      const r: Reading = { hourMs: hourOf(rec.ts), ts: rec.ts, rate: rec.funding_rate }
      this.keep(key, r)
      const hit = this.cache.get(key)
      if (!hit) continue
      const next = foldReading(hit, r)
      if (!next) this.cache.delete(key)
      else if (next !== hit) this.cache.set(key, { ...next, hour: hit.hour })
    }
  }

  /** Drops the histories (after a rebuild); the applied readings stay: the store may not have them all yet. */
  clear(): void {
    this.cache.clear()
    this.epoch++
  }

  private keep(key: string, r: Reading): void {
    let list = this.recent.get(key)
    if (!list) {
      if (this.recent.size >= HISTORY_MAX) this.recent.clear()
      this.recent.set(key, (list = []))
    }
    const i = list.findIndex((x) => x.hourMs >= r.hourMs)
    if (i < 0) list.push(r)
    else if (list[i]!.hourMs !== r.hourMs) list.splice(i, 0, r)
    else if (r.ts >= list[i]!.ts) list[i] = r
    if (list.length > RECENT_HOURS) list.shift()
  }
}
