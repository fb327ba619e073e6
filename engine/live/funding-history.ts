/**
 * @module
 * The live funding histories of the confirmation model: per market, the hourly last funding rates of the last
 * 30 days (engine/live/books-load.ts `loadFundingTail`), loaded once per clock hour and kept current between
 * loads by the funding readings the live state applies. A market's readings arrive every few seconds, so a
 * history reloaded on each one would read 30 days from the store for nearly every evaluation.
 *
 * Invariant: a cached history equals what a load would return once the store holds every reading applied
 * so far. An hour's last rate is the rate of its reading with the greatest `ts` (the store's
 * `argMax(rate, ts)`), so a reading of the newest hour replaces the last rate when it is newer, a reading of
 * a later hour appends one, and a reading of an earlier hour (late, out of order) or one tied in `ts` with a
 * different rate drops the history for a reload. Readings are applied when received, before the store has
 * written them: a load merges the newest applied reading of each of the market's last two hours, so a
 * reading in the store's write queue during a load is not lost (the writes of one table keep their order,
 * so the readings of hours before those are written).
 */
import type { NormalizedRecord } from '../records/types.js'
import type { Store } from '../store/store.js'
import { loadFundingTail, type FundingTail } from './books-load.js'
import { HOUR_MS } from './load-bounds.js'

/** Most markets whose history is cached (every perpetual market fits). */
const HISTORY_MAX = 2_000

/** The primary market's hourly funding history of the last 30 days, as of a moment. */
export interface FundingHistorySource {
  get(exchange: string, symbol: string, nowMs: number): Promise<number[]>
}

/** A reading reduced to what the history keeps: its hour's start (ms), its time (ms) and its rate. */
interface Reading {
  readonly hourMs: number
  readonly ts: number
  readonly rate: number
}

interface Entry extends FundingTail {
  /** the clock hour (ms / HOUR_MS) the history was loaded in: the 30-day window moves by whole hours */
  readonly hour: number
}

/**
 * The history with `r` folded in, or null when it cannot be kept current without a load. `late` is what a
 * reading of an hour before the newest does: dropped (a load's merge: the store has it) or a reload.
 */
export function foldReading(t: FundingTail, r: Reading, late: 'skip' | 'reload'): FundingTail | null {
  if (r.hourMs < t.fromMs) return t
  if (t.rates.length === 0 || r.hourMs > t.lastHourMs) {
    return { rates: [...t.rates, r.rate], fromMs: t.fromMs, lastHourMs: r.hourMs, lastTs: r.ts }
  }
  if (r.hourMs < t.lastHourMs) return late === 'skip' ? t : null
  if (r.ts > t.lastTs) {
    return { rates: [...t.rates.slice(0, -1), r.rate], fromMs: t.fromMs, lastHourMs: t.lastHourMs, lastTs: r.ts }
  }
  if (r.ts < t.lastTs) return t
  // the same time (or the newest time unknown): equal only when the rate is the one held
  return r.ts === t.lastTs && r.rate === t.rates[t.rates.length - 1] ? t : null
}

/** The live histories, cached per market while the clock stays in the hour they were loaded in. */
export class FundingHistory implements FundingHistorySource {
  private readonly cache = new Map<string, Entry>()
  /** per market, its newest applied reading in each of its last two hours, older first */
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
    const loaded = await loadFundingTail(this.store, exchange, symbol, nowMs)
    let tail: FundingTail | null = loaded
    for (const r of this.recent.get(key) ?? []) tail = tail && foldReading(tail, r, 'skip')
    if (!tail) return loaded.rates
    if (epoch === this.epoch) {
      if (this.cache.size >= HISTORY_MAX) this.cache.clear()
      this.cache.set(key, { ...tail, hour })
    }
    return tail.rates
  }

  /** Folds the funding readings among `records` into the histories (and the readings a load merges). */
  applied(records: readonly NormalizedRecord[]): void {
    for (const rec of records) {
      if (rec.kind !== 'funding') continue
      const key = `${rec.exchange}|${rec.symbol}`
      const r: Reading = { hourMs: Math.floor(rec.ts / HOUR_MS) * HOUR_MS, ts: rec.ts, rate: rec.funding_rate }
      this.remember(key, r)
      const hit = this.cache.get(key)
      if (!hit) continue
      const next = foldReading(hit, r, 'reload')
      if (!next) this.cache.delete(key)
      else if (next !== hit) this.cache.set(key, { ...next, hour: hit.hour })
    }
  }

  /** Drops the histories (after a rebuild); the applied readings stay: the store may not have them all yet. */
  clear(): void {
    this.cache.clear()
    this.epoch++
  }

  private remember(key: string, r: Reading): void {
    const list = this.recent.get(key)
    if (!list) {
      if (this.recent.size >= HISTORY_MAX) this.recent.clear()
      this.recent.set(key, [r])
      return
    }
    const i = list.findIndex((x) => x.hourMs === r.hourMs)
    if (i >= 0) {
      if (r.ts >= list[i]!.ts) list[i] = r
    } else if (r.hourMs > list[list.length - 1]!.hourMs) {
      list.push(r)
      if (list.length > 2) list.shift()
    }
  }
}
