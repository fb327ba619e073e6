/**
 * @module
 * Exponential backoff with full jitter for store writes (AWS architecture blog's "full jitter").
 */

/** First retry delay, ms. */
const BASE_DELAY_MS = 200
/** Ceiling of one delay, ms: a store that is down is probed at least this often. */
const MAX_DELAY_MS = 15_000

export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1))
  return Math.round(cap / 2 + (random() * cap) / 2)
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(t)
      resolve()
    })
  })
}
