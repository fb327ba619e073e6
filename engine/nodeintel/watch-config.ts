/**
 * @module
 * Settings of the token watch list and its re-checks (docs/node-intel.md, "Watch list and re-checks"), read
 * once at start; a bad value stops the start with a ConfigError naming the variable and its accepted form.
 */
import { Type } from '@sinclair/typebox'
import { EnvInt, EnvNumber, readEnv, type Env } from '../config/env.js'

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

/** The watch list's variables. */
export const WATCH_ENV = Type.Object({
  NODEINTEL_WATCH_PER_KEY: EnvInt({
    description: 'tokens one API key may watch, all chains together (one more answers 403)',
    default: 100,
    minimum: 1,
    maximum: 100_000
  }),
  NODEINTEL_WATCH_NEW_PAIRS: EnvInt({
    description: 'new-pair tokens watched per chain, the oldest leaving first',
    default: 1_000,
    minimum: 0,
    maximum: 100_000
  }),
  NODEINTEL_RECHECK_POLL_MS: EnvInt({
    description: 'how often new blocks are scanned for re-check triggers, ms (0: no re-checks)',
    default: 1_000,
    minimum: 0,
    maximum: 600_000
  }),
  NODEINTEL_RECHECK_TAX_DELTA_PCT: EnvNumber({
    description: 'a tax moving by more than this many percentage points is a change',
    default: 1,
    minimum: 0,
    maximum: 100
  })
})

export function watchConfig(env: Env): WatchConfig {
  const e = readEnv(WATCH_ENV, env)
  return Object.freeze({
    perKey: e.NODEINTEL_WATCH_PER_KEY,
    newPairs: e.NODEINTEL_WATCH_NEW_PAIRS,
    pollMs: e.NODEINTEL_RECHECK_POLL_MS,
    taxDeltaPct: e.NODEINTEL_RECHECK_TAX_DELTA_PCT
  })
}
