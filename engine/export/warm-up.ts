/**
 * @module
 * The candle tables' caches warmed after a start (`STORE_WARM_UP`), so the first export does not pay for
 * them. A query reads a part's primary index (loaded lazily, on the first query that needs it) and each
 * column's marks (the mark cache: empty after a start) before any row: on the first export after a start
 * that was ~0.6 CPU-s more than on the second (docs/benchmarks.md "Where the first export's time goes").
 * `SYSTEM LOAD PRIMARY KEY` loads every active part's primary index and `SYSTEM PREWARM MARK CACHE` every
 * column's marks of every active part, both without reading a row.
 *
 * It runs once the server is ready, in the background: readiness never waits for it, a table without
 * active parts is skipped (nothing to load), and a failure is logged and ends the warm-up (an export then
 * loads what it needs, as without it). Tables one at a time, the ones exports read most first.
 */
import type { Logger } from '../log.js'
import type { Store } from '../store/store.js'
import { TIMEFRAMES, type TimeframeName } from '../history/timeframes.js'

/** Timeframes whose tables are warmed, in order: the export's usual timeframes first. */
export const WARMED_TIMEFRAMES: readonly TimeframeName[] = ['1m', '5m', '15m', '1h', '4h', '1d']

export interface WarmUpResult {
  /** tables whose primary index and marks were loaded */
  readonly warmed: string[]
  /** tables without active parts (nothing to load) */
  readonly skipped: string[]
  /** wall-clock ms of the whole warm-up */
  readonly ms: number
}

/**
 * Loads the primary index and marks of the candle tables of `timeframes` (chDB and ClickHouse servers
 * alike: both statements act on the node's own parts). Stops early when `signal` aborts. Throws the first
 * store error (the caller logs it).
 */
export async function warmCandleCaches(
  store: Store,
  signal: AbortSignal,
  timeframes: readonly TimeframeName[] = WARMED_TIMEFRAMES
): Promise<WarmUpResult> {
  const t0 = Date.now()
  const warmed: string[] = []
  const skipped: string[] = []
  for (const name of timeframes) {
    if (signal.aborted) break
    // the table name is one of TIMEFRAMES' constants, never input
    const table = TIMEFRAMES[name].table
    const [row] = await store.query<{ parts: number }>(
      `SELECT count() AS parts FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`,
      { table }
    )
    if (!row || Number(row.parts) === 0) {
      skipped.push(table)
      continue
    }
    await store.command(`SYSTEM LOAD PRIMARY KEY ${table}`)
    await store.command(`SYSTEM PREWARM MARK CACHE ${table}`)
    warmed.push(table)
  }
  return { warmed, skipped, ms: Date.now() - t0 }
}

/** Runs `warmCandleCaches` and logs its outcome; never throws (a failed warm-up only costs the first export). */
export async function warmUpLogged(store: Store, signal: AbortSignal, log: Logger): Promise<void> {
  try {
    const r = await warmCandleCaches(store, signal)
    log.info(r, 'candle caches warmed')
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'candle cache warm-up failed; exports load what they need')
  }
}
