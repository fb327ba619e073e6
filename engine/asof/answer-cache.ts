/**
 * @module
 * The cache of `as_of` answers: a small LRU keyed by endpoint, parameters, as_of and known_by. An answer
 * is kept only when its known_by lies at least SETTLE_MS in the past: a row is stamped with its receive
 * time when its insert starts, so until every insert begun by known_by has landed, the same question could
 * still get a different answer; after that it never changes (rows known by then are fixed). Concurrent
 * requests for the same key share one computation whether or not it will be kept.
 */
import type { PointInTime } from './point-in-time.js'

/** Answers kept at most (each one body: a screener answer is tens of kB). */
export const AS_OF_CACHE_MAX = 128
/** How long after known_by an answer may still change, ms: the longest an insert takes to land, with margin. */
export const SETTLE_MS = 120_000

export class AsOfCache<T> {
  private readonly kept = new Map<string, T>()
  private readonly running = new Map<string, Promise<T>>()
  hits = 0
  misses = 0

  constructor(
    private readonly max = AS_OF_CACHE_MAX,
    private readonly settleMs = SETTLE_MS
  ) {}

  /** The answer of `key` at `pit` (the key need not repeat the moments), computing it once when missing. */
  get(key: string, pit: PointInTime, compute: () => Promise<T>, nowMs = Date.now()): T | Promise<T> {
    const k = `${key}|${pit.asOfMs}|${pit.knownByMs}`
    const hit = this.kept.get(k)
    if (hit !== undefined) {
      // most recently used last
      this.kept.delete(k)
      this.kept.set(k, hit)
      this.hits++
      return hit
    }
    const running = this.running.get(k)
    if (running) return running
    this.misses++
    const keep = pit.knownByMs <= nowMs - this.settleMs
    const p = compute().then(
      (v) => {
        this.running.delete(k)
        if (keep) {
          if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value!)
          this.kept.set(k, v)
        }
        return v
      },
      (err: unknown) => {
        this.running.delete(k)
        throw err
      }
    )
    this.running.set(k, p)
    return p
  }

  get size(): number {
    return this.kept.size
  }
}
