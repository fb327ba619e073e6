/**
 * @module
 * Reconnect delays for venue connections: exponential backoff with full jitter (AWS architecture blog),
 * so many sockets dropped at once (a venue restart) do not reconnect in lockstep. Store-write retries use
 * `engine/runtime/retry.ts` (equal jitter, shorter steps); both share its abortable `sleep`.
 */

export interface BackoffOptions {
  /** ceiling of the first delay, ms. @default 500 */
  readonly baseMs: number
  /** ceiling of any delay, ms. @default 30_000 */
  readonly maxMs: number
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 }

/** Delay before reconnect attempt `attempt` (0 = the first after a drop): uniform in [0, min(max, base·2^n)]. */
export function reconnectDelayMs(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const cap = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(attempt, 30))
  return Math.round(random() * cap)
}

/** The shared abortable sleep (`engine/runtime/retry.ts`), here for the venue transports. */
export { sleep } from '../../../engine/runtime/retry.js'
