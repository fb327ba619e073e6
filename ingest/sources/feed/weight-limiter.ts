/**
 * @module
 * A token bucket of request weight for one venue rate limit (Binance counts REQUEST_WEIGHT per IP per
 * minute; the `/futures/data` statistics endpoints count requests per 5 minutes). Callers take the weight
 * of a request before sending it and wait while the bucket is empty. A 429/418 answer or a weight header
 * near the venue's limit pauses the bucket until the given time. Waiters are served in order.
 */
import { sleep } from './backoff.js'

export class WeightLimiter {
  private tokens: number
  private refilledAt = Date.now()
  private pausedUntil = 0
  private tail: Promise<unknown> = Promise.resolve()

  /**
   * @param perMinute weight budget per minute (refill rate)
   * @param burst most weight spent at once after a quiet spell
   */
  constructor(
    private readonly perMinute: number,
    private readonly burst: number
  ) {
    this.tokens = burst
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

  private refill(now: number): void {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.perMinute) / 60_000)
    this.refilledAt = now
  }

  private async acquire(weight: number, signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false
      const now = Date.now()
      this.refill(now)
      const need = Math.min(weight, this.burst)
      if (now >= this.pausedUntil && this.tokens >= need) {
        this.tokens -= need
        return true
      }
      const refillWait = ((need - this.tokens) * 60_000) / this.perMinute
      await sleep(Math.max(1, this.pausedUntil - now, refillWait), signal)
    }
  }
}
