/**
 * @module
 * Market discovery loops of a live venue source. `discover` reads the venue's market list over REST and
 * returns null when a request failed (it never throws). At start the source retries with backoff until a
 * list arrives; afterwards it rediscovers on a schedule and keeps the last list when a turn fails.
 */
import { reconnectDelayMs, sleep, type BackoffOptions } from '../../../engine/runtime/backoff.js'

export type Discover<T> = (signal: AbortSignal) => Promise<T | null>

/** The first market list, retried with backoff; null only when `signal` aborted first. */
export async function discoverWithBackoff<T>(
  discover: Discover<T>,
  backoff: BackoffOptions,
  signal: AbortSignal
): Promise<T | null> {
  let found: T | null = null
  for (let attempt = 0; found === null && !signal.aborted; attempt++) {
    found = await discover(signal)
    if (found === null) await sleep(reconnectDelayMs(attempt, backoff), signal)
  }
  return found
}

/**
 * Rediscovery until `signal` aborts: waits `delayMs()` (ms, asked afresh each turn), discovers and hands
 * the new list to `adopt`. A failed turn keeps the last list; the next turn tries again.
 */
export async function rediscoverLoop<T>(
  delayMs: () => number,
  discover: Discover<T>,
  adopt: (found: T) => void,
  signal: AbortSignal
): Promise<void> {
  while (!signal.aborted) {
    await sleep(delayMs(), signal)
    if (signal.aborted) return
    const found = await discover(signal)
    if (found !== null) adopt(found)
  }
}
