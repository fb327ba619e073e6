/**
 * @module
 * What the store's compaction (engine/store/compact.ts) merges after a bulk load: the candle tables, one
 * per timeframe (engine/history/timeframes.ts), partitioned by month (`toYYYYMM(bucket)`,
 * schemas/002_candles.sql). These are the tables bulk exports read with `FINAL`.
 */
import type { CompactionTarget, TimeRange } from '../store/compact.js'
import { TIMEFRAMES } from './timeframes.js'

/** The candle tables, from 1m to 1mo. */
export const CANDLE_TABLES: readonly string[] = Object.values(TIMEFRAMES).map((t) => t.table)

const DAY_MS = 86_400_000

/**
 * The candle partitions (`toYYYYMM(bucket)`) rows of `range` can land in. A week bucket starts on the
 * Monday before its rows, possibly in the previous month: the range is widened by 7 days back.
 */
export function monthPartitions(range: TimeRange): string[] {
  const out: string[] = []
  const d = new Date(range.fromMs - 7 * DAY_MS)
  let y = d.getUTCFullYear()
  let m = d.getUTCMonth()
  const end = new Date(range.toMs)
  while (y < end.getUTCFullYear() || (y === end.getUTCFullYear() && m <= end.getUTCMonth())) {
    out.push(`${y}${String(m + 1).padStart(2, '0')}`)
    if (++m === 12) {
      m = 0
      y++
    }
  }
  return out
}

/** The candle tables and their monthly partitions, for `compactPartitions` and `Compactor`. */
export const CANDLE_COMPACTION: CompactionTarget = {
  name: 'candle',
  tables: CANDLE_TABLES,
  partitionsOf: monthPartitions
}
