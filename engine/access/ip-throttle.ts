/**
 * @module
 * The shared public-endpoint throttle: a token bucket per client IP (default 60 requests a minute, burst
 * of the same size). The table of buckets is bounded: past MAX_BUCKETS, buckets that have refilled
 * completely (idle clients) are dropped, and if none are, the oldest are.
 */

/** Most client IPs tracked at once; an idle bucket carries no information and can go. */
const MAX_BUCKETS = 100_000

interface Bucket {
  tokens: number
  /** epoch ms of the last refill */
  at: number
}

export type ThrottleDecision =
  | { readonly ok: true; readonly remaining: number; readonly resetSeconds: number }
  | { readonly ok: false; readonly retryAfterSeconds: number }

export class IpThrottle {
  private readonly buckets = new Map<string, Bucket>()
  private readonly perMs: number

  constructor(
    /** requests per minute, also the burst size */
    readonly perMinute: number,
    private readonly now: () => number = Date.now
  ) {
    this.perMs = perMinute / 60_000
  }

  take(ip: string): ThrottleDecision {
    const now = this.now()
    let b = this.buckets.get(ip)
    if (!b) {
      if (this.buckets.size >= MAX_BUCKETS) this.evict(now)
      b = { tokens: this.perMinute, at: now }
      this.buckets.set(ip, b)
    } else {
      b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * this.perMs)
      b.at = now
    }
    if (b.tokens < 1)
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)) }
    b.tokens -= 1
    return {
      ok: true,
      remaining: Math.floor(b.tokens),
      resetSeconds: Math.ceil((this.perMinute - b.tokens) / this.perMs / 1000)
    }
  }

  get size(): number {
    return this.buckets.size
  }

  private evict(now: number): void {
    for (const [ip, b] of this.buckets) {
      if (b.tokens + (now - b.at) * this.perMs >= this.perMinute) this.buckets.delete(ip)
    }
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
