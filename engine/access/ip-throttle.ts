/**
 * @module
 * The shared public-endpoint throttle: a token bucket per client IP (default 60 requests a minute, burst
 * of the same size; engine/runtime/token-bucket.ts). The table of buckets is bounded: past MAX_BUCKETS,
 * buckets that have refilled completely (idle clients) are dropped, and if none are, the oldest are.
 */
import { RefillRate, type BucketLevel } from '../runtime/token-bucket.js'

/** Most client IPs tracked at once; an idle bucket carries no information and can go. */
const MAX_BUCKETS = 100_000

export type ThrottleDecision =
  | { readonly ok: true; readonly remaining: number; readonly resetSeconds: number }
  | { readonly ok: false; readonly retryAfterSeconds: number }

export class IpThrottle {
  /** levels by client IP; `at` is epoch ms of the last refill */
  private readonly buckets = new Map<string, BucketLevel>()
  private readonly rate: RefillRate

  constructor(
    /** requests per minute, also the burst size */
    readonly perMinute: number,
    private readonly now: () => number = Date.now
  ) {
    this.rate = new RefillRate(perMinute, 60_000, perMinute)
  }

  take(ip: string): ThrottleDecision {
    const now = this.now()
    let b = this.buckets.get(ip)
    if (!b) {
      if (this.buckets.size >= MAX_BUCKETS) this.evict(now)
      b = this.rate.full(now)
      this.buckets.set(ip, b)
    } else this.rate.refill(b, now)
    if (b.tokens < 1) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(this.rate.msUntil(b, 1) / 1000)) }
    b.tokens -= 1
    return {
      ok: true,
      remaining: Math.floor(b.tokens),
      resetSeconds: Math.ceil(this.rate.msUntil(b, this.perMinute) / 1000)
    }
  }

  get size(): number {
    return this.buckets.size
  }

  private evict(now: number): void {
    for (const [ip, b] of this.buckets) if (this.rate.isFullAt(b, now)) this.buckets.delete(ip)
    // none idle: drop the oldest quarter (Map keeps insertion order)
    if (this.buckets.size >= MAX_BUCKETS) {
      let n = MAX_BUCKETS / 4
      for (const ip of this.buckets.keys()) {
        if (n-- <= 0) break
        this.buckets.delete(ip)
      }
    }
  }
}
