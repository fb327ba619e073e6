/**
 * @module
 * The one backoff of the service: exponential steps with jitter (AWS architecture blog, "Exponential Backoff
 * And Jitter"), and the abortable `sleep` every retry and reconnect waits with. Step n (0 = the first retry)
 * has the ceiling min(maxMs, baseMs * 2^n); the delay is drawn under it by one of two jitters:
 *
 * - `equal`: half the ceiling plus a random part of the other half, a floor under every delay, so a store
 *   that is down is never hammered by near-zero retries (store-write retries, loads, repairs, restarts);
 * - `full`: uniform in [0, ceiling], so many sockets dropped at once (a venue restart) do not reconnect in
 *   lockstep (venue reconnects and market discovery).
 */

export interface BackoffOptions {
  /** ceiling of the first delay, ms */
  readonly baseMs: number
  /** ceiling of any delay, ms */
  readonly maxMs: number
}

export type Jitter = 'equal' | 'full'

/** Store writes and other local retries: 200 ms first, a store that is down is probed at least every 15 s. */
export const STORE_RETRY: BackoffOptions = { baseMs: 200, maxMs: 15_000 }

/** Venue reconnects and discovery: 500 ms first, at most 30 s apart. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 }

/** Delay before retry `step` (0 = the first), ms, rounded to a whole ms. */
export function backoffDelayMs(
  step: number,
  opts: BackoffOptions,
  jitter: Jitter,
  random: () => number = Math.random
): number {
  const cap = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(Math.max(0, step), 30))
  return Math.round(jitter === 'full' ? random() * cap : cap / 2 + (random() * cap) / 2)
}

/** Equal-jitter delay of the local retry after failed attempt `attempt` (1-based), ms; ceiling `maxMs`. */
export function backoffMs(attempt: number, random: () => number = Math.random, maxMs = STORE_RETRY.maxMs): number {
  return backoffDelayMs(attempt - 1, { baseMs: STORE_RETRY.baseMs, maxMs }, 'equal', random)
}

/** Full-jitter delay of venue reconnect `attempt` (0 = the first after a drop), ms. */
export function reconnectDelayMs(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  return backoffDelayMs(attempt, opts, 'full', random)
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
