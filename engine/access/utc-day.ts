/** UTC day helpers for daily quotas. Days are `YYYY-MM-DD` strings; times are epoch ms. */

const DAY_MS = 86_400_000

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** Epoch ms of the next UTC midnight after `ms`. */
export function nextUtcMidnight(ms: number): number {
  return (Math.floor(ms / DAY_MS) + 1) * DAY_MS
}

/** Whole seconds from `ms` to the next UTC midnight (at least 1). */
export function secondsToUtcMidnight(ms: number): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(ms) - ms) / 1000))
}
