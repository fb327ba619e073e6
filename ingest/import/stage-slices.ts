/**
 * @module
 * Cuts a staged file into slices of whole hours, about `SLICE_ROWS` rows each (an hour is never split,
 * whatever its size), from the staged rows per hour. Each slice is moved into the raw tables by one
 * statement that ClickHouse writes as one insert block (writer.ts): its dedup token then names exactly
 * that block, so a replay after a crash (import-journal.ts) writes each block once. Hours already in the
 * store are recognised whole (coverage.ts).
 */

/**
 * Rows per slice before a new one starts at the next hour. A slice is SLICE_ROWS plus at most one hour
 * (BTCUSDT's busiest hours hold a few 100,000 aggTrades), so it stays under ClickHouse's insert block of
 * 1,048,449 rows (`min_insert_block_size_rows`) and is written as one block.
 */
export const SLICE_ROWS = 500_000

/** Staged rows of one hour (epoch hours), with their time range (epoch ms). */
export interface HourRows {
  readonly hour: number
  readonly rows: number
  readonly minMs: number
  readonly maxMs: number
}

/** Hours `startHour..lastHour` (epoch hours, inclusive) of a staged file. */
export interface StageSlice {
  readonly startHour: number
  lastHour: number
  rows: number
  /** first and last row time, epoch ms */
  minMs: number
  maxMs: number
}

/** The slices of `hours` (ascending), each starting a new hour once the one before holds `sliceRows`. */
export function cutSlices(hours: readonly HourRows[], sliceRows = SLICE_ROWS): StageSlice[] {
  const out: StageSlice[] = []
  for (const h of hours) {
    const last = out.at(-1)
    if (last && last.rows < sliceRows) {
      last.lastHour = h.hour
      last.rows += h.rows
      last.minMs = Math.min(last.minMs, h.minMs)
      last.maxMs = Math.max(last.maxMs, h.maxMs)
    } else out.push({ startHour: h.hour, lastHour: h.hour, rows: h.rows, minMs: h.minMs, maxMs: h.maxMs })
  }
  return out
}
