/**
 * @module
 * The duplicate window of inbound alerts. A sender may deliver one alert twice (TradingView's retries are
 * not documented; a proxy or the sender's own retry can repeat a request): the same alert again within
 * DUPLICATE_WINDOW_MS of the first gets the first answer, marked `duplicate`, is not counted and is not
 * forwarded again. "The same" is the same key, source and fields (docs/alerts.md). Memory is bounded:
 * at most DUPLICATE_MAX alerts are remembered, the oldest forgotten first (counted in `evicted`).
 */

/** How long an alert is remembered, ms: a retry comes within seconds; a real repeat of a strategy's alert rarely within a minute. */
export const DUPLICATE_WINDOW_MS = 60_000
/** Alerts remembered at most: a minute of alerts at ~160/s; past that the oldest are forgotten early. */
export const DUPLICATE_MAX = 10_000

export class DuplicateWindow<T> {
  /** insertion order is arrival order: the first entry is the oldest */
  private readonly seen = new Map<string, { readonly at: number; readonly value: T }>()
  /** remembered alerts forgotten before their window ended, to keep the cap */
  evicted = 0

  constructor(
    private readonly windowMs = DUPLICATE_WINDOW_MS,
    private readonly max = DUPLICATE_MAX
  ) {}

  get size(): number {
    return this.seen.size
  }

  /** The first answer of an alert seen within the window, or undefined. */
  get(key: string, now: number): T | undefined {
    const hit = this.seen.get(key)
    if (hit === undefined) return undefined
    if (now - hit.at < this.windowMs) return hit.value
    this.seen.delete(key)
    return undefined
  }

  /** Remembers an alert from `now` on (its window starts at its first arrival, repeats do not extend it). */
  set(key: string, value: T, now: number): void {
    this.seen.delete(key)
    for (const [k, e] of this.seen) {
      if (now - e.at < this.windowMs && this.seen.size < this.max) break
      this.seen.delete(k)
      if (now - e.at < this.windowMs) this.evicted++
    }
    this.seen.set(key, { at: now, value })
  }

  /** Forgets an alert whose processing failed, so a retry is processed afresh. */
  delete(key: string, value: T): void {
    if (this.seen.get(key)?.value === value) this.seen.delete(key)
  }
}
