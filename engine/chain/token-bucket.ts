/**
 * @module
 * A token bucket with a bounded line of waiters: `take()` resolves at once while tokens last, otherwise
 * when the bucket has refilled enough for this caller (first come, first served). Callers beyond
 * `maxWaiters`, or who would wait longer than `maxWaitMs`, are refused at once (`take` resolves false), so
 * a flood of requests never builds an unbounded queue or a hidden wait longer than the caller's own timeout.
 */

export interface TokenBucketOptions {
  /** tokens added per second (= the sustained rate) */
  readonly ratePerSec: number
  /** bucket size (= the largest burst). @default ratePerSec */
  readonly burst?: number
  /** callers allowed to wait at once. @default 10_000 */
  readonly maxWaiters?: number
}

export class TokenBucket {
  private tokens: number
  private last = performance.now()
  /** tokens promised to waiters not yet served (their wait was computed from it) */
  private reserved = 0
  private waiting = 0
  private readonly rate: number
  private readonly burst: number
  private readonly maxWaiters: number
  /** callers that had to wait for a token */
  waited = 0
  /** callers refused (line full or wait too long) */
  refused = 0

  constructor(opts: TokenBucketOptions) {
    if (!(opts.ratePerSec > 0)) throw new RangeError('ratePerSec must be positive')
    this.rate = opts.ratePerSec
    this.burst = Math.max(1, opts.burst ?? opts.ratePerSec)
    this.maxWaiters = opts.maxWaiters ?? 10_000
    this.tokens = this.burst
  }

  private refill(): void {
    const now = performance.now()
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate)
    this.last = now
  }

  /** Takes one token; waits at most `maxWaitMs` for it. Resolves false when refused (nothing was taken). */
  async take(maxWaitMs: number): Promise<boolean> {
    this.refill()
    if (this.reserved === 0 && this.tokens >= 1) {
      this.tokens -= 1
      return true
    }
    // the caller's place: after every reserved token, this one (ms until the bucket holds them)
    const deficit = this.reserved + 1 - this.tokens
    const waitMs = (deficit / this.rate) * 1000
    if (this.waiting >= this.maxWaiters || waitMs > maxWaitMs) {
      this.refused++
      return false
    }
    this.waited++
    this.waiting++
    this.reserved++
    try {
      await new Promise((r) => setTimeout(r, Math.ceil(waitMs)))
    } finally {
      this.waiting--
      this.reserved--
    }
    this.refill()
    this.tokens -= 1 // may go slightly negative by timer rounding; the next refill repays it
    return true
  }

  /** callers waiting now */
  get queued(): number {
    return this.waiting
  }
}
