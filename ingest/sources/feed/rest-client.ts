/**
 * @module
 * GET requests to a venue's REST API within its rate limits: each request takes its weight from a
 * WeightLimiter first; 429 (rate limited) and 418 (IP banned for ignoring 429s) pause the limiter for the
 * Retry-After time (a venue may add its own such statuses, e.g. Bybit's 403 ban, with a minimum pause); a
 * used-weight header above 80% of the venue's limit pauses until the next minute.
 * Answers come back as text with their receive time, so the transport can hand them to the normalizer
 * (and the recorder) like socket messages. Failures return null and are counted, never thrown.
 */
import type { Logger } from '../../../engine/log.js'
import type { RawQueue } from './raw-queue.js'
import type { WeightLimiter } from './weight-limiter.js'

/** Longest a request may take before it counts as failed. */
const REQUEST_TIMEOUT_MS = 10_000
/** Pause after a 429/418 without Retry-After, ms. */
const DEFAULT_RETRY_AFTER_MS = 60_000

export interface RestAnswer {
  readonly status: number
  readonly text: string
  readonly recvTs: number
}

export interface UsedWeightHeader {
  /** response header with the weight used in the current minute, e.g. `x-mbx-used-weight-1m` */
  readonly name: string
  /** the venue's limit for that header */
  readonly limit: number
}

/** A venue-specific "slow down" answer: its HTTP status and how long REST pauses when it comes without Retry-After. */
export interface BanStatus {
  readonly status: number
  /** pause, ms */
  readonly pauseMs: number
}

export class RestClient {
  /** requests that failed (network, timeout, non-2xx) */
  errors = 0
  /** 429/418 answers */
  rateLimited = 0

  constructor(
    private readonly baseUrl: string,
    private readonly log: Logger,
    private readonly usedWeight?: UsedWeightHeader,
    /** statuses besides 429/418 that mean "rate limited" (Bybit: 403 "access too frequent", a 10-minute ban) */
    private readonly banStatuses: readonly BanStatus[] = []
  ) {}

  /** GET `path` (with query) after taking `weight` from `limiter`; null on failure or abort. */
  async get(path: string, weight: number, limiter: WeightLimiter, signal: AbortSignal): Promise<RestAnswer | null> {
    if (!(await limiter.take(weight, signal))) return null
    try {
      const res = await fetch(this.baseUrl + path, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)])
      })
      const text = await res.text()
      const recvTs = Date.now()
      this.watchWeight(res, limiter, recvTs)
      const ban = this.banStatuses.find((b) => b.status === res.status)
      const limited = res.status === 429 || res.status === 418 || ban !== undefined
      if (limited) {
        this.rateLimited++
        const retryS = Number(res.headers.get('retry-after'))
        const retryMs = retryS > 0 ? retryS * 1000 : 0
        // a ban lasts at least its documented time, whatever Retry-After says
        limiter.pauseUntil(recvTs + (ban ? Math.max(ban.pauseMs, retryMs) : retryMs || DEFAULT_RETRY_AFTER_MS))
        this.log.warn({ path, status: res.status, retry_after_s: retryS || null }, 'venue rate limit hit, pausing REST')
      }
      if (!res.ok) {
        this.errors++
        if (!limited) this.log.warn({ path, status: res.status }, 'venue REST error')
        return null
      }
      return { status: res.status, text, recvTs }
    } catch (err) {
      if (!signal.aborted) {
        this.errors++
        this.log.warn({ path, err: (err as Error).message }, 'venue REST request failed')
      }
      return null
    }
  }

  /**
   * GET `path` as `get` does and push the answer onto `queue` under the channel `path` (the normalizer and
   * the recorder read it there); the answer's text for callers that read it too (discovery, paging), or null.
   */
  async getQueued(
    queue: RawQueue,
    path: string,
    weight: number,
    limiter: WeightLimiter,
    signal: AbortSignal
  ): Promise<string | null> {
    const answer = await this.get(path, weight, limiter, signal)
    if (answer === null) return null
    queue.push({ channel: path, text: answer.text, recvTs: answer.recvTs })
    return answer.text
  }

  private watchWeight(res: Response, limiter: WeightLimiter, now: number): void {
    if (!this.usedWeight) return
    const used = Number(res.headers.get(this.usedWeight.name))
    // the venue's window is the calendar minute: wait for the next one when close to the limit
    if (used > this.usedWeight.limit * 0.8) limiter.pauseUntil(Math.ceil((now + 1) / 60_000) * 60_000)
  }
}
