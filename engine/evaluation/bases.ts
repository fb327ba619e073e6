/**
 * @module
 * The bases an evaluation without `symbol` covers: the EVALUATION_BASES bases with the highest quote
 * volume over the evaluated range (daily candles of every market of the base), among those the caller's
 * plan may read. Ties order by name, so the choice is reproducible.
 */
import { dateTimeSeconds } from '../history/sql-bounds.js'
import type { Store } from '../store/store.js'

/** Most bases an evaluation of "all" covers: keeps its cost at that of a few single-symbol evaluations. */
export const EVALUATION_BASES = 5

const DAY_MS = 86_400_000

/** Bases by quote volume traded in [fromMs, toMs) (whole UTC days holding it), highest first. */
export async function topBasesByVolume(
  store: Store,
  fromMs: number,
  toMs: number,
  allowed: readonly string[] | null,
  limit = EVALUATION_BASES
): Promise<string[]> {
  const rows = await store.query<{ base: string }>(
    `SELECT base FROM candles_1d
     WHERE bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')
       AND ({any:UInt8} = 1 OR base IN {allowed:Array(String)})
     GROUP BY base ORDER BY sum(volume_quote) DESC, base LIMIT {limit:UInt32}`,
    {
      from: dateTimeSeconds(Math.floor(fromMs / DAY_MS) * DAY_MS, 'floor'),
      to: dateTimeSeconds(toMs, 'ceil'),
      any: allowed === null ? 1 : 0,
      allowed: allowed ?? [],
      limit
    }
  )
  return rows.map((r) => r.base)
}
