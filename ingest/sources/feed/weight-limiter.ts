/**
 * @module
 * A token bucket of request weight for one venue rate limit (Binance counts REQUEST_WEIGHT per IP per
 * minute; the `/futures/data` statistics endpoints count requests per 5 minutes), on the shared bucket
 * arithmetic (engine/runtime/token-bucket.ts). Callers take the weight of a request before sending it and
 * wait while the bucket is empty. A 429/418 answer or a weight header near the venue's limit pauses the
 * bucket until the given time. Waiters are served in order.
 */
import { sleep } from '../../../engine/runtime/backoff.js'
import { RefillRate, type BucketLevel } from '../../../engine/runtime/token-bucket.js'

export class WeightLimiter {
  private readonly rate: RefillRate
  private readonly level: BucketLevel
  private pausedUntil = 0
  private tail: Promise<unknown> = Promise.resolve()

  /**
   * @param perMinute weight budget per minute (refill rate)
   * @param burst most weight spent at once after a quiet spell
   */
  constructor(perMinute: number, burst: number) {
    this.rate = new RefillRate(perMinute, 60_000, burst)
    this.level = this.rate.full(Date.now())
  }

  /** Waits until `weight` is available and takes it; false when `signal` aborted first. */
  take(weight: number, signal: AbortSignal): Promise<boolean> {
    const turn = this.tail.then(() => this.acquire(weight, signal))
    this.tail = turn.catch(() => undefined)
    return turn
  }

  /** Sends nothing before `until` (epoch ms), e.g. from a Retry-After header. */
  pauseUntil(until: number): void {
    if (until > this.pausedUntil) this.pausedUntil = until
  }

  private async acquire(weight: number, signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false
      const now = Date.now()
      this.rate.refill(this.level, now)
      const need = Math.min(weight, this.rate.burst)
      if (now >= this.pausedUntil && this.level.tokens >= need) {
        this.level.tokens -= need
        return true
      }
      await sleep(Math.max(1, this.pausedUntil - now, this.rate.msUntil(this.level, need)), signal)
    }
  }
}
