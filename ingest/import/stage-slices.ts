/**
 * @module
 * Cuts a staged file into slices of whole hours, about `SLICE_ROWS` rows each (an hour is never split,
 * whatever its size), from the staged rows per hour. Each slice is moved into the raw tables by one
 * statement that ClickHouse writes as one insert block (writer.ts, `SLICE_BLOCK_ROWS`): its dedup token
 * then names exactly that block, so a replay after a crash (import-journal.ts) writes each block once.
 * Hours already in the store are recognised whole (coverage.ts).
 */

/**
 * Rows per slice before a new one starts at the next hour: the block size the engine itself squashes an
 * insert into (`min_insert_block_size_rows`, 1,048,449 by default), so a file is written in as many blocks,
 * parts and view passes as one `INSERT ... SELECT` of the same rows would be (a daily file of a busy market
 * is one statement). A slice's block holds about 150 bytes of columns per trade while it is written; against
 * 500,000-row slices the bench measured no difference beyond its noise (docs/benchmarks.md "Import").
 */
export const SLICE_ROWS = 1_000_000

/**
 * The squashing bound of a slice's statement (`min_insert_block_size_rows`, rows; writer.ts): above any
 * slice, SLICE_ROWS plus its last hour (BTCUSDT's busiest hours hold a few 100,000 aggTrades), so the
 * engine writes each slice as one block whatever its hours hold. The bytes bound is set as high for the
 * same reason (a slice of wide rows, such as Tardis option quotes with their instrument names, can pass
 * the engine's 256 MiB default).
 */
export const SLICE_BLOCK_ROWS = 8_388_608
/** `min_insert_block_size_bytes` of a slice's statement: 4 GiB, never the bound that cuts a slice. */
export const SLICE_BLOCK_BYTES = 4 * 1024 ** 3

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
