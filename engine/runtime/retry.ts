/**
 * @module
 * Exponential backoff with equal jitter (AWS architecture blog, "Exponential Backoff And Jitter"): each
 * delay is half the capped exponential step plus a random part of the other half. Equal rather than full
 * jitter keeps a floor under every delay, so a store that is down is never hammered by near-zero retries.
 * Used by store-write retries, venue reconnects and the supervisor's restarts.
 */

/** First retry delay, ms. */
const BASE_DELAY_MS = 200
/** Ceiling of one delay, ms: a store that is down is probed at least this often. */
const MAX_DELAY_MS = 15_000

export function backoffMs(attempt: number, random: () => number = Math.random, maxMs = MAX_DELAY_MS): number {
  const cap = Math.min(maxMs, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1))
  return Math.round(cap / 2 + (random() * cap) / 2)
}

/**
 * Resolves after `ms`, or at once when `signal` aborts. It removes its abort listener, since feeds sleep on
 * one long-lived signal many times (shared by store-write retries and venue reconnects).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(t)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const t = setTimeout(done, ms)
    signal?.addEventListener('abort', done)
  })
}
