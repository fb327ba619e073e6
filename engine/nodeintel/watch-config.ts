/**
 * @module
 * Settings of the token watch list and its re-checks (docs/node-intel.md, "Watch list and re-checks"), read
 * once at start with messages naming the variable.
 */
import { envInt, envNumber, type Env } from '../config/env.js'

export interface WatchConfig {
  /** tokens one API key may register, all chains together; one more answers 403. @default 100 */
  readonly perKey: number
  /** new-pair tokens watched per chain (the oldest leaves first). @default 1000 */
  readonly newPairs: number
  /** new blocks are scanned for triggers every this many ms (0: no re-checks). @default 1000 */
  readonly pollMs: number
  /** a tax moving by more than this, percentage points, is a change even when the verdict stays. @default 1 */
  readonly taxDeltaPct: number
}

export function watchConfig(env: Env): WatchConfig {
  return Object.freeze({
    perKey: envInt(env, 'NODEINTEL_WATCH_PER_KEY', 100, 1, 100_000),
    newPairs: envInt(env, 'NODEINTEL_WATCH_NEW_PAIRS', 1_000, 0, 100_000),
    pollMs: envInt(env, 'NODEINTEL_RECHECK_POLL_MS', 1_000, 0, 600_000),
    taxDeltaPct: envNumber(env, 'NODEINTEL_RECHECK_TAX_DELTA_PCT', 1, 0, 100)
  })
}
