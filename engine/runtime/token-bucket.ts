/**
 * @module
 * The one token bucket of the service. `RefillRate` holds the arithmetic: a bucket's level (`BucketLevel`,
 * plain data, so a table of many buckets stays small) gains `perPeriod` tokens every `periodMs`, up to
 * `burst`. Its users add their own policy on top:
 *
 * - `TokenBucket` (here): one bucket with a bounded line of waiters (chain RPC clients);
 * - `WeightLimiter` (ingest/sources/feed/weight-limiter.ts): request weight per venue limit, paused by 429s;
 * - `IpThrottle` (engine/access/ip-throttle.ts): one bucket per client IP, refusing at once.
 */

/** A bucket's tokens as of `at` (ms on the clock its `RefillRate` is given). */
export interface BucketLevel {
  tokens: number
  at: number
}

export class RefillRate {
  constructor(
    /** tokens added per period */
    readonly perPeriod: number,
    /** the period, ms */
    readonly periodMs: number,
    /** bucket size (the largest burst), tokens */
    readonly burst: number
  ) {
    if (!(perPeriod > 0) || !(periodMs > 0)) throw new RangeError('a bucket refills at a positive rate')
  }

  /** A full bucket at `now`. */
  full(now: number): BucketLevel {
    return { tokens: this.burst, at: now }
  }

  /** Brings `level` up to `now`. */
  refill(level: BucketLevel, now: number): void {
    level.tokens = Math.min(this.burst, level.tokens + ((now - level.at) * this.perPeriod) / this.periodMs)
    level.at = now
  }

  /** Whether a bucket last refilled at `level` is full again at `now` (an idle one carries no information). */
  isFullAt(level: BucketLevel, now: number): boolean {
    return level.tokens + ((now - level.at) * this.perPeriod) / this.periodMs >= this.burst
  }

  /** ms from the level's time until it holds `tokens` (0 when it does), no other taker assumed. */
  msUntil(level: BucketLevel, tokens: number): number {
    return tokens <= level.tokens ? 0 : ((tokens - level.tokens) * this.periodMs) / this.perPeriod
  }
}

export interface TokenBucketOptions {
  /** tokens added per second (= the sustained rate) */
  readonly ratePerSec: number
  /** bucket size (= the largest burst). @default ratePerSec */
  readonly burst?: number
  /** callers allowed to wait at once. @default 10_000 */
  readonly maxWaiters?: number
  /** the clock, ms (tests drive it). @default performance.now */
  readonly now?: () => number
  /** waits `ms` (tests move their clock instead). @default a timer */
  readonly wait?: (ms: number) => Promise<void>
}

const timer = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/**
 * A token bucket with a bounded line of waiters: `take()` resolves at once while tokens last, otherwise
 * when the bucket has refilled enough for this caller (first come, first served). Callers beyond
 * `maxWaiters`, or who would wait longer than `maxWaitMs`, are refused at once (`take` resolves false), so
 * a flood of requests never builds an unbounded queue or a hidden wait longer than the caller's own timeout.
 */
export class TokenBucket {
  private readonly rate: RefillRate
  private readonly level: BucketLevel
  /** tokens promised to waiters not yet served (their wait was computed from it) */
  private reserved = 0
  private waiting = 0
  private readonly maxWaiters: number
  private readonly now: () => number
  private readonly wait: (ms: number) => Promise<void>
  /** callers that had to wait for a token */
  waited = 0
  /** callers refused (line full or wait too long) */
  refused = 0

  constructor(opts: TokenBucketOptions) {
    if (!(opts.ratePerSec > 0)) throw new RangeError('ratePerSec must be positive')
    this.rate = new RefillRate(opts.ratePerSec, 1000, Math.max(1, opts.burst ?? opts.ratePerSec))
    this.maxWaiters = opts.maxWaiters ?? 10_000
    this.now = opts.now ?? (() => performance.now())
    this.wait = opts.wait ?? timer
    this.level = this.rate.full(this.now())
  }

  /**
   * Takes one token if one is there now and nobody waits (no promise, no wait); false otherwise, nothing
   * taken and nothing counted: the caller goes on to `take`.
   */
  tryTake(): boolean {
    this.rate.refill(this.level, this.now())
    if (this.reserved !== 0 || this.level.tokens < 1) return false
    this.level.tokens -= 1
    return true
  }

  /** Takes one token; waits at most `maxWaitMs` for it. Resolves false when refused (nothing was taken). */
  async take(maxWaitMs: number): Promise<boolean> {
    if (this.tryTake()) return true
    // the caller's place: after every reserved token, this one (ms until the bucket holds them)
    const waitMs = this.rate.msUntil(this.level, this.reserved + 1)
    if (this.waiting >= this.maxWaiters || waitMs > maxWaitMs) {
      this.refused++
      return false
    }
    this.waited++
    this.waiting++
    this.reserved++
    try {
      await this.wait(Math.ceil(waitMs))
    } finally {
      this.waiting--
      this.reserved--
    }
    this.rate.refill(this.level, this.now())
    this.level.tokens -= 1 // may go slightly negative by timer rounding; the next refill repays it
    return true
  }

  /** callers waiting now */
  get queued(): number {
    return this.waiting
  }
}
