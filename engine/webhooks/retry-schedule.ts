/**
 * @module
 * The retry rule (spec "States and transitions"): an attempt that gets a 2xx is delivered; any other
 * answer (3xx included: redirects are not followed), or none within the timeout, is retried up to 3 times
 * after about 1 s, 4 s and 16 s. Delays are jittered ±20% (Svix's figure) so retries of many deliveries
 * spread out. A 429 waits at least its Retry-After, at most WEBHOOK_RETRY_AFTER_MAX_S. A 410 Gone is final:
 * the webhook is disabled. After the last retry the delivery is `failed`.
 */

/** Delays before retries 1, 2 and 3, ms (spec: about 1 s, 4 s, 16 s); `WEBHOOK_RETRY_DELAYS_MS` replaces them. */
export const RETRY_DELAYS_MS: readonly number[] = [1_000, 4_000, 16_000]
/** Attempts per round: the first and 3 retries. */
export const ATTEMPTS_PER_ROUND = RETRY_DELAYS_MS.length + 1
/** Jitter of each delay, as a fraction (±). */
export const JITTER = 0.2

export type Outcome = 'delivered' | 'retry' | 'failed' | 'gone'

/** What an answer (status null: none, an error) means for the delivery after `attemptInRound` (1-based). */
export function outcomeOf(status: number | null, attemptInRound: number): Outcome {
  if (status !== null && status >= 200 && status < 300) return 'delivered'
  if (status === 410) return 'gone'
  return attemptInRound < ATTEMPTS_PER_ROUND ? 'retry' : 'failed'
}

/** Delay before the retry that follows attempt `attemptInRound` (1-based), ms, on the schedule `delays`. */
export function retryDelayMs(
  attemptInRound: number,
  random: () => number = Math.random,
  delays: readonly number[] = RETRY_DELAYS_MS
): number {
  const base = delays[Math.min(attemptInRound, delays.length) - 1]!
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()))
}

/**
 * Delay after a 429 with `retryAfter` (seconds or an HTTP date): at least the scheduled delay, at most
 * `maxMs`. An absent or unreadable header keeps the scheduled delay.
 */
export function retryAfterDelayMs(retryAfter: string | null, scheduledMs: number, maxMs: number, now: number): number {
  if (retryAfter === null) return scheduledMs
  const s = retryAfter.trim()
  let ms: number
  if (/^\d+$/.test(s)) ms = Number(s) * 1000
  else {
    const at = Date.parse(s)
    if (Number.isNaN(at)) return scheduledMs
    ms = at - now
  }
  return Math.min(maxMs, Math.max(scheduledMs, ms))
}
